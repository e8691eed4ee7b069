#!/usr/bin/env bash
# Builds local stand-ins of the base images Dockerfile and compose.yaml name, tagged with those names,
# for a test machine that cannot pull from Docker Hub. A real server never needs this: it pulls the
# official images.
#
#   node:20-bookworm-slim  Debian bookworm with this machine's Node.js 20 where the official image keeps it
#                          (/usr/local/bin/node, /usr/local/lib/node_modules/npm, npm/npx links, headers in
#                          /usr/local/include/node) and a user `node` (uid 1000)
#   caddy:2                bookworm with Debian's caddy at /usr/bin/caddy, /etc/caddy/Caddyfile, data in
#                          /data, config in /config
#   postgres:15-bookworm   bookworm with Debian's PostgreSQL 15 and an entrypoint that honours
#                          POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB and PGDATA as the official one does
#   redis:7-bookworm       bookworm with Debian's redis-server, data in /data
#
# What only this machine needs, and the stand-ins therefore carry: its TLS-inspecting proxy's CA (the
# machine's bundle becomes the image's /etc/ssl/certs/ca-certificates.crt, and npm's global config points
# cafile at it), and npm's `nodedir` pointing at the headers, because better-sqlite3 must compile from
# source (its prebuilt binaries are not reachable from here).
#
# The debootstrap result is cached in $QG_DEPLOY_CACHE (default ~/.cache/qris-gateway-deploy), keyed by a
# hash of the code that makes it; an image is rebuilt only when its label carries another key (a hash of
# this script and the Node.js version). Needs root (debootstrap), debootstrap, the docker CLI (DOCKER_HOST as the caller set it)
# and network access to http://deb.debian.org/debian. Builds use the host network.
set -euo pipefail

cache="${QG_DEPLOY_CACHE:-$HOME/.cache/qris-gateway-deploy}"
mirror="${QG_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
node_bin="$(command -v node)"
node_version="$("$node_bin" --version)"
case "$node_version" in v20.*) ;; *) echo "stand-in-images: node:20 needs Node.js 20 on this machine, found $node_version" >&2; exit 1 ;; esac
npm_dir="${QG_NPM_DIR:-$(dirname "$(readlink -f "$(command -v npm)")")/..}"
npm_dir="$(readlink -f "$npm_dir")"
node_headers="${QG_NODE_HEADERS:-$(dirname "$(dirname "$node_bin")")/include/node}"
ca_bundle="${QG_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"

key="$( (cat "$0"; echo "$node_version") | sha256sum | cut -c1-16)"
mkdir -p "$cache"

log() { printf 'stand-in-images: %s\n' "$*" >&2; }

has_current() { # image name -> 0 when it exists and carries this key
  [ "$(docker image inspect --format '{{index .Config.Labels "qg.stand-in.key"}}' "$1" 2>/dev/null || true)" = "$key" ]
}

# 1. Debian bookworm (minbase). The tarball is keyed by this function's text and the mirror only, so an
# edit elsewhere in this script rebuilds the images from it without running debootstrap again.
make_rootfs() { # target dir
  debootstrap --variant=minbase bookworm "$1" "$mirror"
  # As the official images: deb822 sources with updates and security, no cached package lists.
  rm -f "$1/etc/apt/sources.list"
  cat >"$1/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$1/var/lib/apt/lists/"* "$1/var/cache/apt/archives/"*.deb
}
rootfs_key="$( (declare -f make_rootfs; echo "$mirror") | sha256sum | cut -c1-16)"
rootfs_tar="$cache/bookworm-$rootfs_key.tar"
if [ ! -s "$rootfs_tar" ]; then
  log "debootstrap bookworm from $mirror (cached as $rootfs_tar)"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  make_rootfs "$work/root" >"$work/debootstrap.log" 2>&1 || {
    tail -30 "$work/debootstrap.log" >&2
    exit 1
  }
  tar -C "$work/root" --numeric-owner -cf "$rootfs_tar.part" .
  mv "$rootfs_tar.part" "$rootfs_tar"
  rm -rf "$work"
  trap - EXIT
  # Older keys' tarballs are dead weight.
  find "$cache" -maxdepth 1 -name 'bookworm-*.tar' ! -name "bookworm-$rootfs_key.tar" -delete
fi

base="qg-stand-in/bookworm:$rootfs_key"
if ! docker image inspect "$base" >/dev/null 2>&1; then
  log "importing $base"
  docker import --change 'CMD ["bash"]' "$rootfs_tar" "$base" >/dev/null
fi

build() { # tag, context dir (holding a Dockerfile)
  log "building $1"
  docker build --network host -q --label "qg.stand-in.key=$key" -t "$1" "$2" >/dev/null
}

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT

# 2. node:20-bookworm-slim
if ! has_current node:20-bookworm-slim; then
  mkdir -p "$ctx/node"
  cp "$node_bin" "$ctx/node/node"
  cp -a "$npm_dir" "$ctx/node/npm"
  cp -a "$node_headers" "$ctx/node/include-node"
  cp "$ca_bundle" "$ctx/node/ca-certificates.crt"
  cat >"$ctx/node/npmrc" <<'EOF'
cafile=/etc/ssl/certs/ca-certificates.crt
nodedir=/usr/local
update-notifier=false
fund=false
EOF
  cat >"$ctx/node/Dockerfile" <<EOF
FROM $base
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY include-node /usr/local/include/node
COPY npmrc /usr/local/etc/npmrc
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && node --version && npm --version
ENV NODE_VERSION=${node_version#v}
CMD ["node"]
EOF
  build node:20-bookworm-slim "$ctx/node"
fi

apt_install='apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends'
apt_clean='apt-get clean && rm -rf /var/lib/apt/lists/*'

# 3. caddy:2
if ! has_current caddy:2; then
  mkdir -p "$ctx/caddy"
  cat >"$ctx/caddy/Dockerfile" <<EOF
FROM $base
RUN $apt_install caddy >/dev/null && $apt_clean && mkdir -p /config/caddy /data/caddy /srv
ENV XDG_CONFIG_HOME=/config XDG_DATA_HOME=/data
VOLUME /config /data
EXPOSE 80 443 443/udp 2019
WORKDIR /srv
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
EOF
  build caddy:2 "$ctx/caddy"
fi

# 4. postgres:15-bookworm
if ! has_current postgres:15-bookworm; then
  mkdir -p "$ctx/postgres"
  cat >"$ctx/postgres/entrypoint.sh" <<'EOF'
#!/bin/bash
# The official image's contract, in short: a new PGDATA is initialised with POSTGRES_USER (default postgres),
# POSTGRES_PASSWORD (required) and POSTGRES_DB (default: the user), then postgres runs as user postgres.
set -euo pipefail
if [ "${1:-postgres}" != postgres ]; then exec "$@"; fi
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?postgres stand-in: POSTGRES_PASSWORD must be set}"
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  as_pg initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  if [ "$db" != postgres ]; then
    as_pg pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    as_pg psql -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""
    as_pg pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA"
EOF
  chmod +x "$ctx/postgres/entrypoint.sh"
  cat >"$ctx/postgres/Dockerfile" <<EOF
FROM $base
RUN $apt_install postgresql-15 >/dev/null && $apt_clean
ENV PATH=/usr/lib/postgresql/15/bin:\$PATH PGDATA=/var/lib/postgresql/data
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
EOF
  build postgres:15-bookworm "$ctx/postgres"
fi

# 5. redis:7-bookworm (the official image's redis-server is built with protected mode off, whatever the
# command line: here an entrypoint adds the flag)
if ! has_current redis:7-bookworm; then
  mkdir -p "$ctx/redis"
  cat >"$ctx/redis/entrypoint.sh" <<'EOF'
#!/bin/sh
if [ "$1" = redis-server ]; then shift; exec redis-server --protected-mode no "$@"; fi
exec "$@"
EOF
  chmod +x "$ctx/redis/entrypoint.sh"
  cat >"$ctx/redis/Dockerfile" <<EOF
FROM $base
RUN $apt_install redis-server >/dev/null && $apt_clean && mkdir -p /data && chown redis:redis /data
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /data
WORKDIR /data
USER redis
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
EOF
  build redis:7-bookworm "$ctx/redis"
fi

log "ready: node:20-bookworm-slim caddy:2 postgres:15-bookworm redis:7-bookworm (key $key)"
