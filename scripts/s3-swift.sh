#!/usr/bin/env bash
# Runs an all-in-one OpenStack Swift with the s3api middleware on 127.0.0.1 for the S3 tests
# (facts in shared/s3-swift/README.md). Credentials: access key "test:tester", secret "testing",
# region us-east-1, path-style addressing.
#
#   scripts/s3-swift.sh start DIR PORT [BUCKET...]   # PORT: proxy (S3 endpoint); PORT+1..3: account,
#                                                    # container, object servers; PORT+4: memcached
#   scripts/s3-swift.sh stop DIR
#
# Everything lives under DIR (configs, rings, devices, logs, pids). `start` returns once the proxy
# answers its healthcheck, the buckets exist and an object can be written (about 10 s). Environment:
#   RAP_SWIFT_MAX_LISTING     keys per ListObjects page (default 1000, the S3 default)
#   RAP_SWIFT_START_TIMEOUT   seconds to wait for health (default 180; ~10 s on an idle machine)
set -euo pipefail

usage() { echo "usage: $0 start DIR PORT [BUCKET...] | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)

stop() {
  if [ -f "$dir/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null || true; done < "$dir/pids"
    for _ in $(seq 1 50); do
      alive=0
      while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done < "$dir/pids"
      [ $alive = 0 ] && break
      sleep 0.1
    done
    while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done < "$dir/pids"
    rm -f "$dir/pids"
  fi
}

case "$cmd" in
  stop) stop; exit 0 ;;
  start) ;;
  *) usage ;;
esac
[ $# -ge 3 ] || usage
port=$3
shift 3
buckets=("$@")
for tool in swift-ring-builder swift-proxy-server swift-account-server swift-container-server swift-object-server \
            memcached curl; do
  command -v "$tool" >/dev/null || { echo "s3-swift: $tool missing (run scripts/install-deps.sh)" >&2; exit 1; }
done
[ -f /etc/swift/swift.conf ] || { echo "s3-swift: /etc/swift/swift.conf missing (package swift)" >&2; exit 1; }

etc=$dir/etc
mkdir -p "$etc" "$dir/srv/node/d1" "$dir/log"
listing=${RAP_SWIFT_MAX_LISTING:-1000}

server_conf() {  # name port
  cat > "$etc/$1-server.conf" <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $2
workers = 0
swift_dir = $etc
devices = $dir/srv/node
mount_check = false
disable_fallocate = true
log_name = $1
[pipeline:main]
pipeline = $1-server
[app:$1-server]
use = egg:swift#$1
CONF
}
server_conf account $((port + 1))
server_conf container $((port + 2))
server_conf object $((port + 3))

cat > "$etc/proxy-server.conf" <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $port
workers = 0
swift_dir = $etc
log_name = proxy

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = us-east-1
max_bucket_listing = $listing

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin
reseller_prefix = AUTH

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$((port + 4))
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
CONF

i=1
for ring in account container object; do
  rm -f "$etc/$ring.builder" "$etc/$ring.ring.gz"
  swift-ring-builder "$etc/$ring.builder" create 6 1 0 >/dev/null
  swift-ring-builder "$etc/$ring.builder" add "r1z1-127.0.0.1:$((port + i))/d1" 100 >/dev/null
  swift-ring-builder "$etc/$ring.builder" rebalance >/dev/null 2>&1 || true
  [ -f "$etc/$ring.ring.gz" ] || { echo "s3-swift: building the $ring ring failed" >&2; exit 1; }
  i=$((i + 1))
done

stop  # leftovers of an earlier run in the same DIR
user_opt=()
[ "$(id -u)" = 0 ] && user_opt=(-u root)
memcached -l 127.0.0.1 -p $((port + 4)) -U 0 -m 64 "${user_opt[@]}" > "$dir/log/memcached.log" 2>&1 &
echo $! >> "$dir/pids"
for s in account container object proxy; do
  "swift-$s-server" "$etc/$s-server.conf" -v > "$dir/log/$s.log" 2>&1 &
  echo $! >> "$dir/pids"
done

# Healthy: the proxy answers /healthcheck and an authenticated S3 call works.
netrc=$dir/netrc
printf 'machine 127.0.0.1\nlogin test:tester\npassword testing\n' > "$netrc"
s3() {  # method path
  curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 aws:amz:us-east-1:s3 --netrc-file "$netrc" \
       -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -X "$1" "http://127.0.0.1:$port$2" || true
}
deadline=$((SECONDS + ${RAP_SWIFT_START_TIMEOUT:-180}))
last=""
while [ $SECONDS -lt $deadline ]; do
  if [ "$(curl -s "http://127.0.0.1:$port/healthcheck" || true)" = OK ] && [ "$(s3 GET /)" = 200 ]; then
    # A 5xx here is a back end (the container server) still starting while the proxy and the
    # account server already answer: tried again until the deadline. Other codes are errors.
    created=1
    for b in "${buckets[@]}"; do
      code=$(s3 PUT "/$b")
      case "$code" in
        200|409) ;;
        5??) created=0; last="creating bucket $b gave HTTP $code"; break ;;
        *) echo "s3-swift: creating bucket $b gave HTTP $code" >&2; stop; exit 1 ;;
      esac
    done
    # And the object server: a probe object written and deleted (5xx: still starting, tried again).
    if [ $created = 1 ] && [ ${#buckets[@]} -eq 0 ]; then
      echo "s3-swift: ready on http://127.0.0.1:$port (dir $dir)"
      exit 0
    elif [ $created = 1 ]; then
      probe="/${buckets[0]}/.s3-swift-probe"
      code=$(curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 aws:amz:us-east-1:s3 --netrc-file "$netrc" \
                  -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -X PUT --data-binary probe "http://127.0.0.1:$port$probe" || true)
      case "$code" in
        200)
          s3 DELETE "$probe" > /dev/null
          echo "s3-swift: ready on http://127.0.0.1:$port (dir $dir)"
          exit 0 ;;
        5??|000) last="writing a probe object gave HTTP $code" ;;
        *) echo "s3-swift: writing a probe object gave HTTP $code" >&2; stop; exit 1 ;;
      esac
    fi
  fi
  for pid in $(cat "$dir/pids"); do
    kill -0 "$pid" 2>/dev/null || { echo "s3-swift: a server exited; logs in $dir/log" >&2; tail -5 "$dir"/log/*.log >&2; stop; exit 1; }
  done
  sleep 0.1
done
echo "s3-swift: not healthy after ${RAP_SWIFT_START_TIMEOUT:-180} s${last:+ ($last)}; logs in $dir/log" >&2
stop
exit 1
