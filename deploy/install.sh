#!/usr/bin/env bash
# Installs qris-gateway's compose stack (compose.yaml: the gateway behind Caddy) on a Debian or Ubuntu
# server, from this checkout:
#   sudo deploy/install.sh --domain pay.example.com --email you@example.com [--postgres] [--yes]
# Installs Docker from the distribution when it is missing, checks that DOMAIN resolves to this server and
# that the ports are free, writes .env from .env.example (owner-only, generated secrets), starts the stack,
# waits for /healthz over HTTPS and prints the console's URL and the command that makes the first operator.
# Running it again changes nothing that works: values already in .env are kept, only missing ones added.
# Test switches: --skip-dns-check, --internal-ca (CADDY_TLS=internal); HTTP_PORT, HTTPS_PORT and
# GATEWAY_IMAGE from the environment go into a new .env.
set -euo pipefail

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
}

DOMAIN_ARG=""
EMAIL_ARG=""
POSTGRES=0
YES=0
SKIP_DNS=0
INTERNAL_CA=0
while [ $# -gt 0 ]; do
  case "$1" in
    --domain) DOMAIN_ARG="${2:-}"; shift 2 ;;
    --domain=*) DOMAIN_ARG="${1#*=}"; shift ;;
    --email) EMAIL_ARG="${2:-}"; shift 2 ;;
    --email=*) EMAIL_ARG="${1#*=}"; shift ;;
    --postgres) POSTGRES=1; shift ;;
    --yes | -y) YES=1; shift ;;
    --skip-dns-check) SKIP_DNS=1; shift ;;
    --internal-ca) INTERNAL_CA=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done

say() { printf '==> %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

STARTED=$(date +%s)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
{ [ -f compose.yaml ] && [ -f .env.example ]; } || die "run it from a qris-gateway checkout (no compose.yaml or .env.example in $ROOT)"

# ---- Docker ----
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else die "needs root for: $*"; fi
}
apt_has() { apt-cache show "$1" >/dev/null 2>&1; }
install_compose() {
  # The compose plugin when the distribution has it (Ubuntu: docker-compose-v2), else docker-compose 1.29.
  local pkg
  for pkg in docker-compose-v2 docker-compose-plugin docker-compose; do
    if apt_has "$pkg"; then
      say "installing $pkg"
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$pkg"
      return 0
    fi
  done
  die "no Docker Compose package found: install Docker Compose, then run this again"
}
if ! command -v docker >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || die "Docker is missing and this is not Debian or Ubuntu: install Docker, then run this again"
  say "installing Docker from the distribution (docker.io)"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y docker.io curl openssl
  install_compose
  if command -v systemctl >/dev/null 2>&1; then as_root systemctl enable --now docker || true; fi
fi
if docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose)
  COMPOSE_SHOWN="docker compose"
elif command -v docker-compose >/dev/null 2>&1; then
  COMPOSE=(docker-compose)
  COMPOSE_SHOWN="docker-compose"
else
  command -v apt-get >/dev/null 2>&1 || die "Docker Compose is missing: install it, then run this again"
  as_root apt-get update
  install_compose
  if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); COMPOSE_SHOWN="docker compose"; else COMPOSE=(docker-compose); COMPOSE_SHOWN="docker-compose"; fi
fi
docker info >/dev/null 2>&1 || die "the Docker daemon does not answer (is it running? run this as root or as a member of the docker group)"
command -v curl >/dev/null 2>&1 || die "curl is missing: apt-get install curl"
compose() { "${COMPOSE[@]}" -f compose.yaml "$@"; }

# ---- .env ----
env_get() {
  # The value of an uncommented KEY= line of a file (empty when there is none).
  [ -f "$2" ] || return 0
  sed -n "s/^$1=//p" "$2" | tail -n 1
}
secret() {
  if command -v openssl >/dev/null 2>&1; then openssl rand -hex "$1"; else od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; fi
}

EXISTING_DOMAIN=$(env_get DOMAIN .env)
[ "$EXISTING_DOMAIN" = "pay.example.com" ] && EXISTING_DOMAIN=""
if [ -n "$EXISTING_DOMAIN" ]; then
  if [ -n "$DOMAIN_ARG" ] && [ "$DOMAIN_ARG" != "$EXISTING_DOMAIN" ]; then
    die ".env already sets DOMAIN=$EXISTING_DOMAIN: edit .env to change it"
  fi
  DOMAIN="$EXISTING_DOMAIN"
else
  DOMAIN="$DOMAIN_ARG"
  if [ -z "$DOMAIN" ] && [ "$YES" -eq 0 ] && [ -t 0 ]; then read -r -p "Domain (its DNS record points at this server): " DOMAIN; fi
  [ -n "$DOMAIN" ] || die "no domain: give --domain pay.example.com"
fi
printf '%s' "$DOMAIN" | grep -Eq '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$' || die "not a domain name: $DOMAIN"

EMAIL=$(env_get ACME_EMAIL .env)
if [ -z "$EMAIL" ]; then
  EMAIL="$EMAIL_ARG"
  if [ -z "$EMAIL" ] && [ "$YES" -eq 0 ] && [ -t 0 ]; then read -r -p "Your e-mail (the console's first operator): " EMAIL; fi
  [ -n "$EMAIL" ] || die "no e-mail: give --email you@example.com"
fi
printf '%s' "$EMAIL" | grep -Eq '^[^@[:space:]|\\]+@[^@[:space:]|\\]+$' || die "not an e-mail address: $EMAIL"

# ---- check: DNS ----
# Before .env is written: a domain that does not resolve here yet (a typo, a record still spreading) must
# not end up in .env, where the next run, with the right domain, would refuse to change it.
if [ "$SKIP_DNS" -eq 0 ]; then
  resolved=$(getent ahosts "$DOMAIN" | awk '{print $1}' | sort -u || true)
  [ -n "$resolved" ] || die "$DOMAIN does not resolve: add its A (or AAAA) record pointing at this server, wait for it, then run this again (--skip-dns-check skips this)"
  mine=$(ip -o addr show 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4}' || true)
  public=$(curl -fsS --max-time 10 https://api.ipify.org 2>/dev/null || true)
  ok=0
  for address in $resolved; do
    if printf '%s\n%s\n' "$mine" "$public" | grep -Fxq "$address"; then ok=1; fi
  done
  [ "$ok" -eq 1 ] || die "$DOMAIN resolves to $(echo "$resolved" | tr '\n' ' ')but this server is $(echo "$public" "$mine" | tr '\n' ' '): fix the DNS record (--skip-dns-check skips this)"
fi

# What the stack's .env gets when it does not have it yet.
KEYS=(DOMAIN ACME_EMAIL METRICS_TOKEN)
declare -A WANT=([DOMAIN]="$DOMAIN" [ACME_EMAIL]="$EMAIL" [METRICS_TOKEN]="$(secret 24)")
if [ "$INTERNAL_CA" -eq 1 ]; then KEYS+=(CADDY_TLS); WANT[CADDY_TLS]=internal; fi
for name in HTTP_PORT HTTPS_PORT GATEWAY_IMAGE; do
  if [ -n "${!name:-}" ]; then KEYS+=("$name"); WANT[$name]="${!name}"; fi
done
if [ "$POSTGRES" -eq 1 ]; then
  pg_password=$(env_get POSTGRES_PASSWORD .env)
  [ -n "$pg_password" ] || pg_password=$(secret 24)
  KEYS+=(COMPOSE_PROFILES POSTGRES_PASSWORD DATABASE_URL REDIS_URL)
  WANT[COMPOSE_PROFILES]=postgres
  WANT[POSTGRES_PASSWORD]="$pg_password"
  WANT[DATABASE_URL]="postgres://gateway:$pg_password@postgres:5432/gateway"
  WANT[REDIS_URL]="redis://redis:6379"
fi

umask 077
work=$(mktemp "$ROOT/.env.install.XXXXXX")
trap 'rm -f "$work"' EXIT
if [ -f .env ]; then cp .env "$work"; else cp .env.example "$work"; fi
for key in "${KEYS[@]}"; do
  current=$(env_get "$key" "$work")
  # A new .env takes the value; an existing one keeps its own (DOMAIN's placeholder aside).
  if [ -f .env ] && [ -n "$current" ] && ! { [ "$key" = DOMAIN ] && [ "$current" = pay.example.com ]; }; then continue; fi
  if grep -Eq "^#?$key=" "$work"; then
    # The first KEY= or #KEY= line becomes KEY=value; a later uncommented one goes.
    awk -v k="$key" -v v="${WANT[$key]}" '
      $0 ~ "^#?" k "=" { if (!done) { print k "=" v; done = 1 } else if ($0 !~ "^#") { } else print; next }
      { print }' "$work" >"$work.new"
    mv "$work.new" "$work"
  else
    printf '%s=%s\n' "$key" "${WANT[$key]}" >>"$work"
  fi
done

# ---- check: ports ----
# Before .env is written too, from the settings it is about to hold (an existing .env keeps its own): a
# refusal here leaves nothing behind that the next run would have to undo.
HTTP_PORT_SET=$(env_get HTTP_PORT "$work"); HTTP_PORT_SET=${HTTP_PORT_SET:-80}
HTTPS_PORT_SET=$(env_get HTTPS_PORT "$work"); HTTPS_PORT_SET=${HTTPS_PORT_SET:-443}
HTTPS_NUM=${HTTPS_PORT_SET##*:}
HTTPS_HOST=127.0.0.1
case "$HTTPS_PORT_SET" in *:*) HTTPS_HOST=${HTTPS_PORT_SET%:*} ;; esac
[ "$HTTPS_HOST" = "0.0.0.0" ] && HTTPS_HOST=127.0.0.1

running=$(compose ps -q caddy 2>/dev/null || true)
if [ -n "$running" ] && [ "$(docker inspect --format '{{.State.Running}}' "$running" 2>/dev/null)" = true ]; then
  say "the stack runs already: port checks skipped"
elif command -v ss >/dev/null 2>&1; then
  for port in "${HTTP_PORT_SET##*:}" "$HTTPS_NUM"; do
    if [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; then
      die "port $port is in use (ss -ltnp shows by what): Caddy needs it; stop that server, or set HTTP_PORT/HTTPS_PORT (in .env, or in the environment before .env exists)"
    fi
  done
fi

if [ -f .env ] && cmp -s "$work" .env; then
  say ".env is up to date (kept as it was)"
else
  if [ -f .env ]; then say "adding the missing settings to .env (its values are kept)"; else say "writing .env (secrets generated)"; fi
  chmod 600 "$work"
  mv "$work" .env
fi
chmod 600 .env

# ---- the stack ----
say "starting the stack ($COMPOSE_SHOWN up -d; the first run builds the gateway's image: minutes)"
compose up -d

say "waiting for https://$DOMAIN/healthz"
curl_args=(-fsS --max-time 10 --resolve "$DOMAIN:$HTTPS_NUM:$HTTPS_HOST")
if [ "$(env_get CADDY_TLS .env)" = internal ]; then
  # Caddy's own CA: its root, once Caddy has made it, is the one certificate trusted.
  ca="$ROOT/deploy/caddy-root.crt"
  deadline=$(($(date +%s) + 120))
  until docker cp "$(compose ps -q caddy)":/data/caddy/pki/authorities/local/root.crt "$ca" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "Caddy made no root CA in 120 s: $COMPOSE_SHOWN logs caddy"
    sleep 1
  done
  curl_args+=(--cacert "$ca")
fi
url="https://$DOMAIN"
[ "$HTTPS_NUM" = 443 ] || url="$url:$HTTPS_NUM"
deadline=$(($(date +%s) + 300))
until curl "${curl_args[@]}" "$url/healthz" >/dev/null 2>&1; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    compose logs --tail 40 >&2 || true
    die "no answer from $url/healthz in 300 s (the logs are above)"
  fi
  sleep 2
done

echo
say "qris-gateway is up: $url/healthz answers over HTTPS ($(($(date +%s) - STARTED)) s)"
echo "Console: $url/dashboard"
# Run through sudo, the commands shown need it too (the Docker socket is root's).
AS_ROOT=""
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then AS_ROOT="sudo "; fi
echo "Make its first operator (asks for the password):"
echo "  cd $ROOT && $AS_ROOT$COMPOSE_SHOWN exec gateway qris-gateway user add --email $EMAIL --role operator"
echo "Upgrades: ${AS_ROOT}deploy/upgrade.sh (backs up first). Settings: $ROOT/.env (then $AS_ROOT$COMPOSE_SHOWN up -d)."
