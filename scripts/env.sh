# Shared by ./run and ./test (sourced, not executed): make the project's .venv and,
# for the browser tests, Debian's chromium. Both steps are skipped when already done.

# The interpreter that creates .venv; override with PYTHON=/path/to/python3.11. By default the
# distribution's own /usr/bin/python3 when it is 3.11 or newer (Debian 12's 3.11), even where pyenv or
# another manager puts a python3 of its own first on PATH: a default pyenv build (no profile-guided or
# link-time optimisation) ran a pure-Python loop 25 % slower than Debian's here, and S1's cycle about 10 %
# (issue 9's figures). Else (also when it cannot make a venv yet: no python3-venv) the python3 on PATH.
default_python() {
    if [ -x /usr/bin/python3 ] &&
        /usr/bin/python3 -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo /usr/bin/python3
    else
        echo python3
    fi
}
PYTHON="${PYTHON:-$(default_python)}"

ensure_venv() {
    if [ -x .venv/bin/python ] && .venv/bin/python -m pip --version >/dev/null 2>&1; then
        return 0
    fi
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "error: Capacity Lab needs Python >= 3.11; '$PYTHON' is $("$PYTHON" -V 2>&1 || echo missing)." >&2
        echo "       Set PYTHON=/path/to/python3.11 and try again." >&2
        exit 1
    fi
    rm -rf .venv
    if ! "$PYTHON" -m venv .venv; then
        # Debian ships venv/ensurepip separately (python3-venv); install it when we can.
        rm -rf .venv
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "== installing python3-venv (Debian)"
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
            "$PYTHON" -m venv .venv
        else
            echo "error: '$PYTHON -m venv' failed; on Debian run: sudo apt-get install -y python3-venv" >&2
            exit 1
        fi
    fi
}

ensure_chromium() {
    if command -v chromium >/dev/null 2>&1; then
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing chromium (Debian) for the browser tests"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "warning: chromium is missing and cannot be installed without root;" >&2
        echo "         browser tests will be skipped (and fail when CI=true). Fix: sudo apt-get install -y chromium" >&2
    fi
}
