// Presenter mode before the first paint (a classic script in <head>): the projector layout
// of workshop.css and large fonts, whatever the saved preference.
(function () {
  var root = document.documentElement;
  root.dataset.presenter = "1";
  root.dataset.size = "large";
})();
