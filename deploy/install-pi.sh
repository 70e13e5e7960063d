#!/usr/bin/env bash
# Install the table referee on Raspberry Pi OS (Bookworm or later) from this repository.
#
#   sudo deploy/install-pi.sh [--user NAME] [--port 8000] [--camera pi]
#
# What it does: installs picamera2/libcamera and OpenCV's system libraries with apt, makes a
# virtual environment that sees the system's picamera2 (--system-site-packages), installs the
# package into it, makes the table's control PIN (random, six digits, in pin.env beside the
# match log; kept on later runs), writes /etc/systemd/system/table-referee.service (from
# table-referee.service beside this script) and starts it. Run it again to update after a `git pull`.
set -euo pipefail

user="${SUDO_USER:-pi}"
port=8000
camera=pi
while [[ $# -gt 0 ]]; do
    case "$1" in
        --user) user="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        --camera) camera="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "install-pi.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

if [[ $EUID -ne 0 ]]; then
    echo "install-pi.sh: run me with sudo" >&2
    exit 2
fi
if ! id "$user" >/dev/null 2>&1; then
    echo "install-pi.sh: no user named $user (use --user NAME)" >&2
    exit 2
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="$(getent passwd "$user" | cut -d: -f6)"
venv="$repo/.venv"
data="$home/.local/share/table-referee"

echo "== apt: picamera2, libcamera, Python tools"
apt-get update
apt-get install -y --no-install-recommends python3-picamera2 python3-venv python3-pip libcap-dev

echo "== virtual environment in $venv (sees the system's picamera2)"
sudo -u "$user" python3 -m venv --system-site-packages "$venv"
sudo -u "$user" "$venv/bin/pip" install --upgrade pip
# The same pinned versions as everywhere else (requirements/run.txt, hash-checked), then the
# referee itself; the lock has the Pi's aarch64 wheels.
sudo -u "$user" "$venv/bin/pip" install --require-hashes -r "$repo/requirements/run.txt"
sudo -u "$user" "$venv/bin/pip" install --no-deps --no-build-isolation -e "$repo"
sudo -u "$user" "$venv/bin/python" -c "import picamera2" \
    || echo "warning: picamera2 does not import in the virtual environment; the Pi camera will not open" >&2
sudo -u "$user" mkdir -p "$data"
pin_file="$data/pin.env"
if [[ ! -s "$pin_file" ]]; then
    # A PIN of this table's own: the dashboard on a live camera refuses the demo's 1234.
    pin="$(python3 -c 'import secrets; print(f"{secrets.randbelow(10**6):06d}")')"
    (umask 077 && printf 'REFEREE_PIN=%s\n' "$pin" > "$pin_file")
    chown "$user" "$pin_file"
    echo "== control PIN $pin (kept in $pin_file: edit it there, then sudo systemctl restart table-referee)"
fi
usermod -aG video "$user"

echo "== systemd unit table-referee.service"
sed -e "s|@USER@|$user|g" -e "s|@REPO@|$repo|g" -e "s|@DATA@|$data|g" \
    -e "s|@PORT@|$port|g" -e "s|@CAMERA@|$camera|g" \
    "$repo/deploy/table-referee.service" > /etc/systemd/system/table-referee.service
systemctl daemon-reload
systemctl enable table-referee.service
systemctl restart table-referee.service

address="$(hostname -I | awk '{print $1}')"
echo
echo "The referee is running. Open http://${address:-$(hostname).local}:$port/ on the tablets."
echo "The control PIN is in $pin_file."
echo "Logs: journalctl -u table-referee -f    Matches: $venv/bin/referee matches list --db $data/matches.db"
