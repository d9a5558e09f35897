# Sourced by scripts/serve and scripts/test: make .venv and install requirements into it.
#
# ensure_venv FILE... creates .venv with `python3 -m venv` if it is missing or broken,
# then runs `pip install -r FILE... -c requirements.lock` unless every FILE and the lock are
# unchanged since the last successful install (a SHA-256 stamp per file, with the Python
# version, in .venv/). The requirements files name what the project asks for; the lock pins
# every package installed with them, transitive ones too, so every machine gets one set
# (scripts/lock rewrites it).

_requirements_digest() {
    { .venv/bin/python -c 'import sys; print(sys.version)'; cat "$1"; } | sha256sum | cut -d' ' -f1
}

_requirements_stamp() {
    echo ".venv/.installed-$(echo "$1" | tr '/' '_').sha256"
}

ensure_venv() {
    local python=.venv/bin/python file stale=0 args=()
    if [ -e "$python" ] && ! "$python" -c 'import sys' >/dev/null 2>&1; then
        echo "==> .venv is broken (its Python is gone): recreating it"
        rm -rf .venv
    fi
    if [ ! -x "$python" ]; then
        echo "==> Creating .venv with $(python3 --version)"
        python3 -m venv .venv
    fi

    for file in "$@" requirements.lock; do
        if [ "$file" = requirements.lock ]; then
            args+=(-c "$file")
        else
            args+=(-r "$file")
        fi
        local stamp
        stamp=$(_requirements_stamp "$file")
        if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(_requirements_digest "$file")" ]; then
            stale=1
        fi
    done
    if [ "$stale" -eq 0 ]; then
        echo "==> Requirements unchanged ($*): skipping pip install"
        return 0
    fi

    echo "==> Installing $* into .venv"
    "$python" -m pip install --disable-pip-version-check --quiet "${args[@]}"
    for file in "$@" requirements.lock; do
        _requirements_digest "$file" >"$(_requirements_stamp "$file")"
    done
}
