# The scaled deployment under podman-compose (scripts/compose-test --scaled sources this after
# the image is built; it uses that script's functions and variables).

# ------------------------------------------------------------------------------------------------
section "4s. a PostgreSQL image from Debian's packages (compose.yaml's postgres:15-bookworm)"
readonly POSTGRES_IMAGE=docker.io/library/postgres:15-bookworm
mkdir -p "$tmp/postgres-image"
{
    # What the official image's entrypoint does with POSTGRES_USER, POSTGRES_PASSWORD and
    # POSTGRES_DB on an empty data directory, then the server on every address, password logins.
    cat >"$tmp/postgres-image/entrypoint.sh" <<'SH'
#!/bin/bash
set -euo pipefail
data=/var/lib/postgresql/data
bin=/usr/lib/postgresql/15/bin
# As root (the official image starts so too): the volume to the postgres user, then as it.
if [[ $(id -u) == 0 ]]; then
    mkdir -p "$data" /var/run/postgresql
    chown -R postgres:postgres "$data" /var/run/postgresql
    chmod 700 "$data"
    exec runuser -u postgres -- "$0" "$@"
fi
if [[ ! -s $data/PG_VERSION ]]; then
    [[ -n ${POSTGRES_PASSWORD:-} ]] || { echo "POSTGRES_PASSWORD is required" >&2; exit 1; }
    printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pw
    "$bin/initdb" -D "$data" -U "${POSTGRES_USER:-postgres}" --pwfile=/tmp/pw -A scram-sha-256 >/dev/null
    rm -f /tmp/pw
    echo "host all all all scram-sha-256" >>"$data/pg_hba.conf"
    "$bin/pg_ctl" -D "$data" -o "-c listen_addresses=''" -w start >/dev/null
    # As the official image: the database POSTGRES_DB (default: the user's name) unless it is
    # the one initdb made.
    db="${POSTGRES_DB:-${POSTGRES_USER:-postgres}}"
    if [[ $db != postgres ]]; then
        PGPASSWORD=$POSTGRES_PASSWORD "$bin/createdb" -h /var/run/postgresql -U "${POSTGRES_USER:-postgres}" "$db"
    fi
    "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
fi
exec "$bin/postgres" -D "$data" -c listen_addresses='*'
SH
    cat >"$tmp/postgres-image/Containerfile" <<CONTAINERFILE
FROM $BASE_RUNTIME
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \\
    && rm -rf /var/lib/apt/lists/* && mkdir -p /var/lib/postgresql/data /var/run/postgresql \\
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY --chmod=755 entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CONTAINERFILE
}
# Made again when what it is made from changed (its label holds their digest).
recipe="$(cat "$tmp/postgres-image/entrypoint.sh" "$tmp/postgres-image/Containerfile" | sha256sum | cut -c1-16)"
echo "LABEL podium.recipe=$recipe" >>"$tmp/postgres-image/Containerfile"
if [[ $(podman image inspect --format '{{index .Labels "podium.recipe"}}' "$POSTGRES_IMAGE" 2>/dev/null) != "$recipe" ]]; then
    podman build --pull=never --layers=false --quiet -t "$POSTGRES_IMAGE" "$tmp/postgres-image" \
        >"$tmp/postgres-image.log" 2>&1 || { tail -n 30 "$tmp/postgres-image.log" >&2; fail "making $POSTGRES_IMAGE failed"; }
fi
pass "$POSTGRES_IMAGE: $(podman image inspect --format '{{.Size}}' "$POSTGRES_IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }')"

# ------------------------------------------------------------------------------------------------
section "5s. docker compose --profile postgres --profile scaled up, as DEPLOYMENT.md says"
mkdir -p "$tmp/project"
cp compose.yaml "$tmp/project/compose.yaml"
cd "$tmp/project"
# The operator's admin key, added as compose.yaml's comment says (to .env and to the gateways'
# environment): the partitions each instance holds are in `<service>.health`'s details, which
# only the admin key gets.
admin_key="$(openssl rand -hex 32)"
# (the first PODIUM_AUTH_TOKEN_KEY line is in the gateways' shared environment, &gateway-environment)
sed -i '0,/^      PODIUM_AUTH_TOKEN_KEY: /s|^\(      PODIUM_AUTH_TOKEN_KEY: .*\)$|\1\n      PODIUM_ADMIN_KEY: "${PODIUM_ADMIN_KEY:?}"|' compose.yaml
grep -q 'PODIUM_ADMIN_KEY: "${PODIUM_ADMIN_KEY:?}"' compose.yaml || fail "could not add PODIUM_ADMIN_KEY to the gateways' environment"
pg_password="$(openssl rand -hex 24)"
{
    echo "PODIUM_ADMIN_KEY=$admin_key"
    echo "PODIUM_NOTIFICATION_SECRET=$(openssl rand -hex 32)"
    echo "PODIUM_AUTH_TOKEN_KEY=$(openssl rand -hex 32)"
    echo "POSTGRES_PASSWORD=$pg_password"
    echo "PODIUM_DATABASE_URL=postgres://podium:$pg_password@postgres:5432/podium?sslmode=disable"
    echo "PODIUM_BUS_PUBLISH_HUBS=tcp://gateway:5560,tcp://gateway-2:5560"
    echo "PODIUM_BUS_SUBSCRIBE_HUBS=tcp://gateway:5561,tcp://gateway-2:5561"
    echo "PODIUM_BUS_SERVICES_HUBS=tcp://gateway:5562,tcp://gateway-2:5562"
} >.env
read -r p1 p2 p3 p4 p5 p6 < <(python3 - <<'PY'
import random, socket
ports, port = [], random.randrange(20000, 30000)
while len(ports) < 6 and port < 32000:
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port)); ports.append(port)
        except OSError:
            pass
    port += 1
print(*ports)
PY
)
export PODIUM_REQUESTS_PORT="$p1" PODIUM_NOTIFICATIONS_PORT="$p2" PODIUM_HTTP_PORT="$p3"
export PODIUM_REQUESTS_PORT_2="$p4" PODIUM_NOTIFICATIONS_PORT_2="$p5" PODIUM_HTTP_PORT_2="$p6"
endpoints=("tcp://127.0.0.1:$p1" "tcp://127.0.0.1:$p4")
SERVICES=(postgres gateway gateway-2 auth auth-2 leaderboard leaderboard-2 achievement achievement-2 challenge challenge-2)
compose_up=true
up_start=$SECONDS
compose --profile postgres --profile scaled up -d >"$tmp/up.log" 2>&1 \
    || { cat "$tmp/up.log" >&2; fail "podman-compose up -d (postgres, scaled) failed"; }
wait_healthy 240
pass "all ${#SERVICES[@]} healthy $((SECONDS - up_start)) s after up"

mkdir -p "$tmp/bin"
podman cp "$(container_of gateway):/usr/local/bin/podium" "$tmp/bin/podium"
podium="$tmp/bin/podium"

# ------------------------------------------------------------------------------------------------
section "6s. every instance serves its share"
# Each service's health through both gateways, many times (any instance answers health): which
# instances hold which partitions, once every partition has settled.
holdings() { # service -> "instance partitions" lines
    local service="$1" endpoint
    for endpoint in "${endpoints[@]}" "${endpoints[@]}" "${endpoints[@]}" "${endpoints[@]}"; do
        "$podium" request --endpoint "$endpoint" --type "$service.health" --admin-key "$admin_key" --timeout 3 \
            2>/dev/null || true
    done | python3 -c '
import json, sys
held = {}
for line in sys.stdin:
    try:
        payload = json.loads(line)["payload"]
    except Exception:
        continue
    held[payload["instance"]] = payload.get("partitions") or []
for instance, partitions in sorted(held.items()):
    print(instance, ",".join(map(str, partitions)) or "-")'
}
for service in auth leaderboard achievement challenge; do
    deadline=$((SECONDS + 60))
    while true; do
        lines="$(holdings "$service")"
        serving="$(awk '$2 != "-"' <<<"$lines" | wc -l)"
        total="$(awk '$2 != "-" { n += split($2, a, ",") } END { print n + 0 }' <<<"$lines")"
        want_serving=2 want_total=16
        if ((serving == want_serving && total == want_total && $(wc -l <<<"$lines") == 2)); then break; fi
        ((SECONDS < deadline)) || fail "$service: not $want_serving instances serving $want_total partitions: $lines"
        sleep 2
    done
    pass "$service: $(tr '\n' ' ' <<<"$lines")"
done

# Scores on 16 boards defined by an operator... as a player: the example game's boards, each read
# back through the other gateway (every board's requests go to the instance owning it).
password="compose-$(openssl rand -hex 12)"
export PODIUM_ENDPOINT="${endpoints[0]}" PODIUM_SESSION_FILE="$tmp/cli/session.json"
printf '%s\n' "$password" | "$podium" register --username scaled --password-stdin >"$tmp/register.out" 2>&1 \
    || fail "podium register: $(cat "$tmp/register.out")"
value=100
for board in com.example.dash.highscore com.example.dash.fastest com.example.dash.coins; do
    value=$((value + 1))
    "$podium" request --type leaderboard.submit --game dash --payload "{\"boardId\":\"$board\",\"value\":$value}" \
        >"$tmp/submit.out" 2>&1 || fail "leaderboard.submit $board: $(cat "$tmp/submit.out")"
    PODIUM_ENDPOINT="${endpoints[1]}" "$podium" request --type leaderboard.entry --game dash \
        --payload "{\"boardId\":\"$board\"}" >"$tmp/entry.out" 2>&1 || fail "leaderboard.entry $board: $(cat "$tmp/entry.out")"
    grep -q "\"value\":$value" "$tmp/entry.out" || fail "$board through the second gateway: $(cat "$tmp/entry.out")"
done
pass "scores on three boards (partitions $(python3 - <<'PY'
def fnv(key):
    h = 0xcbf29ce484222325
    for b in key.encode():
        h ^= b; h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h % 16
print(",".join(str(fnv("dash/com.example.dash." + b)) for b in ("highscore", "fastest", "coins")))
PY
)) submitted through gateway 1, read back through gateway 2"
"$podium" publish --game whackacac --name cactus.hit --value 1 --attribute matchId=m1 >"$tmp/publish.out" 2>&1 \
    || fail "podium publish: $(cat "$tmp/publish.out")"
deadline=$((SECONDS + 20))
until PODIUM_ENDPOINT="${endpoints[1]}" "$podium" request --type achievement.list --game whackacac >"$tmp/ach.out" 2>&1 \
    && grep -q '"timesEarned":1' "$tmp/ach.out"; do
    ((SECONDS < deadline)) || fail "the event's achievement was not earned within 20 s: $(cat "$tmp/ach.out")"
    sleep 0.5
done
pass "an event through gateway 1 earned its achievement, read through gateway 2 (its player's partition's instance)"

compose down --volumes --timeout 15 >"$tmp/down.log" 2>&1 || { cat "$tmp/down.log" >&2; fail "podman-compose down failed"; }
compose_up=false
section "scaled deployment: PASS"
