#!/usr/bin/env bash
# Upgrades the compose stack deploy/install.sh set up: a backup first (SQLite: `qris-gateway backup` into the
# data volume's /data/backups; PostgreSQL: pg_dump into backups/ here), the running image tagged
# <image>:previous, then `git pull` (--no-pull skips it), `compose build` (--no-build skips it: a published
# GATEWAY_IMAGE is pulled instead), `up -d`, and a wait for /healthz over HTTPS. It ends with how to roll
# back.
#   deploy/upgrade.sh [--no-pull] [--no-build] [--yes]
set -euo pipefail

PULL=1
BUILD=1
YES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-pull) PULL=0; shift ;;
    --no-build) BUILD=0; shift ;;
    --yes | -y) YES=1; shift ;;
    -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "upgrade.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
say() { printf '==> %s\n' "$*"; }
die() { printf 'upgrade.sh: %s\n' "$*" >&2; exit 1; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ -f .env ] || die "no .env in $ROOT: run deploy/install.sh first"
if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); COMPOSE_SHOWN="docker compose"; else COMPOSE=(docker-compose); COMPOSE_SHOWN="docker-compose"; fi
compose() { "${COMPOSE[@]}" -f compose.yaml "$@"; }
env_get() { sed -n "s/^$1=//p" .env | tail -n 1; }

DOMAIN=$(env_get DOMAIN)
IMAGE=$(env_get GATEWAY_IMAGE); IMAGE=${IMAGE:-qris-gateway:local}
PREVIOUS="${IMAGE%:*}:previous"
DATABASE_URL_SET=$(env_get DATABASE_URL)
HTTPS_PORT_SET=$(env_get HTTPS_PORT); HTTPS_PORT_SET=${HTTPS_PORT_SET:-443}
HTTPS_NUM=${HTTPS_PORT_SET##*:}
HTTPS_HOST=127.0.0.1
case "$HTTPS_PORT_SET" in *:*) HTTPS_HOST=${HTTPS_PORT_SET%:*} ;; esac
[ "$HTTPS_HOST" = "0.0.0.0" ] && HTTPS_HOST=127.0.0.1

if [ "$YES" -eq 0 ] && [ -t 0 ]; then
  read -r -p "Upgrade the stack in $ROOT (a backup is made first)? [y/N] " answer
  case "$answer" in y | Y | yes) ;; *) die "nothing done" ;; esac
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
[ -n "$(compose ps -q gateway)" ] || die "the gateway is not running: start it ($COMPOSE_SHOWN up -d) so it can be backed up"
case "$DATABASE_URL_SET" in
  postgres://* | postgresql://*)
    umask 077
    mkdir -p backups
    BACKUP="$ROOT/backups/qris-gateway-before-upgrade-$stamp.dump"
    say "backing up PostgreSQL (pg_dump) to $BACKUP"
    compose exec -T postgres pg_dump -U gateway --format=custom gateway >"$BACKUP.part"
    mv "$BACKUP.part" "$BACKUP"
    RESTORE="$COMPOSE_SHOWN stop gateway && $COMPOSE_SHOWN exec -T postgres pg_restore -U gateway --clean --if-exists -d gateway < $BACKUP"
    ;;
  *)
    BACKUP="/data/backups/qris-gateway-before-upgrade-$stamp.db"
    say "backing up the SQLite database to $BACKUP (in the volume data)"
    compose exec -T gateway sh -c 'umask 077 && mkdir -p /data/backups'
    compose exec -T gateway qris-gateway backup --to "$BACKUP"
    RESTORE="$COMPOSE_SHOWN stop gateway && $COMPOSE_SHOWN run --rm --no-deps gateway qris-gateway restore --from $BACKUP"
    ;;
esac

running_image=$(docker inspect --format '{{.Image}}' "$(compose ps -q gateway)")
docker tag "$running_image" "$PREVIOUS"
say "the running image is tagged $PREVIOUS"

if [ "$PULL" -eq 1 ]; then
  say "git pull"
  git pull --ff-only
fi
if [ "$BUILD" -eq 1 ]; then
  say "building the image ($COMPOSE_SHOWN build)"
  compose build gateway
else
  compose pull --ignore-pull-failures gateway >/dev/null 2>&1 || true
fi
say "restarting ($COMPOSE_SHOWN up -d)"
compose up -d

curl_args=(-fsS --max-time 10 --resolve "$DOMAIN:$HTTPS_NUM:$HTTPS_HOST")
[ "$(env_get CADDY_TLS)" = internal ] && [ -f deploy/caddy-root.crt ] && curl_args+=(--cacert deploy/caddy-root.crt)
url="https://$DOMAIN"
[ "$HTTPS_NUM" = 443 ] || url="$url:$HTTPS_NUM"
deadline=$(($(date +%s) + 300))
until curl "${curl_args[@]}" "$url/healthz" >/dev/null 2>&1; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    compose logs --tail 40 gateway >&2 || true
    echo "Roll back: docker tag $PREVIOUS $IMAGE && $RESTORE && $COMPOSE_SHOWN up -d" >&2
    die "no answer from $url/healthz in 300 s (the gateway's log is above)"
  fi
  sleep 2
done
echo
say "upgraded: $url/healthz answers over HTTPS"
echo "Backup: $BACKUP"
echo "Roll back (the previous image, and the database as it was before the upgrade):"
echo "  cd $ROOT && docker tag $PREVIOUS $IMAGE && $RESTORE && $COMPOSE_SHOWN up -d"
