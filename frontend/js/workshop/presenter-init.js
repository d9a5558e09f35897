// Presenter mode before the first paint (a classic script in <head>, after theme-init.js):
// the projector layout of workshop.css. The theme and font size stay the saved preference
// (their buttons move into the presenter bar).
document.documentElement.dataset.presenter = "1";
