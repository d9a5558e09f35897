// The header's theme and font-size toggles (state saved in localStorage).
const root = document.documentElement;

function save(key, value) {
  try { localStorage.setItem(key, value); } catch { /* private mode: not persisted */ }
}

function sync() {
  for (const btn of document.querySelectorAll(".pref-btn")) {
    const on = btn.dataset.pref === "theme" ? root.dataset.theme === "dark"
      : root.dataset.size === "large";
    btn.setAttribute("aria-pressed", String(on));
  }
}

for (const btn of document.querySelectorAll(".pref-btn")) {
  btn.addEventListener("click", () => {
    if (btn.dataset.pref === "theme") {
      root.dataset.theme = root.dataset.theme === "dark" ? "light" : "dark";
      save("pg-theme", root.dataset.theme);
    } else {
      root.dataset.size = root.dataset.size === "large" ? "normal" : "large";
      save("pg-size", root.dataset.size);
    }
    sync();
    window.dispatchEvent(new CustomEvent("pg-prefs"));
  });
}
sync();
