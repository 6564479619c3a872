#!/bin/sh
# The Debian packages the whole suite uses (README, "Quick start"), installed only where missing and each
# on its own, so one that cannot be installed does not stop the others:
# - as root there is no sudo (a container, a fresh VM): apt-get runs as it is; otherwise through sudo;
# - Node: NodeSource's `nodejs` carries npm and conflicts with Debian's `npm` package, so npm is installed
#   only when there is no npm command, and nodejs only when there is no node.
# Prints what it installed and what failed; exits 1 when something is still missing.
set -u

if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi

# command -v finds what is on PATH; nginx lives in /usr/sbin, outside a user's PATH (SBIN_DIRS: the
# folders looked in besides PATH).
has() {
    command -v "$1" >/dev/null 2>&1 && return 0
    for folder in ${SBIN_DIRS-/usr/sbin /sbin}; do [ -x "$folder/$1" ] && return 0; done
    return 1
}

missing=""
for pair in chromium:chromium chromedriver:chromium-driver redis-server:redis-server nginx:nginx \
    msgfmt:gettext node:nodejs; do
    has "${pair%%:*}" || missing="$missing ${pair#*:}"
done

if [ -z "$missing" ] && has npm; then
    echo "Every package the suite uses is installed."
    exit 0
fi

$SUDO apt-get update -q || echo "apt-get update failed; trying the installs anyway."
installed=""
failed=""
install() {
    echo "Installing $1..."
    if $SUDO apt-get install -y -q "$1"; then installed="$installed $1"; else failed="$failed $1"; fi
}
for package in $missing; do
    install "$package"
done
# After nodejs: Debian's nodejs comes without npm, NodeSource's with it.
has npm || install npm

if [ -n "$failed" ]; then
    echo "Could not install:$failed (the tests that need them are skipped, each naming its package)."
    exit 1
fi
echo "Installed:$installed."
