// Applies the saved theme and font size before the first paint (a classic script in <head>).
(function () {
  var root = document.documentElement;
  var theme = null, size = null;
  try {
    theme = localStorage.getItem("pg-theme");
    size = localStorage.getItem("pg-size");
  } catch (e) { /* storage disabled: defaults */ }
  if (!theme && window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches) {
    theme = "dark";
  }
  root.dataset.theme = theme === "dark" ? "dark" : "light";
  root.dataset.size = size === "large" ? "large" : "normal";
})();
