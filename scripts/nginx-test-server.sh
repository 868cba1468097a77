#!/usr/bin/env bash
# Serves a directory with Debian's nginx on 127.0.0.1 for benchmarks and manual tests (the C++ tests
# use tests/testing/nginx_fixture.h instead). Keep-alive and sendfile on, one worker, an access log
# with nginx's connection serial number ($connection) so connection reuse can be counted.
#
#   scripts/nginx-test-server.sh start DIR ROOT PORT   # config, logs and pid under DIR
#   scripts/nginx-test-server.sh stop DIR
set -euo pipefail
usage() { echo "usage: $0 start DIR ROOT PORT | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
dir=$(mkdir -p "$2" && cd "$2" && pwd)
case "$1" in
  stop)
    if [ -f "$dir/nginx.pid" ]; then
      pid=$(cat "$dir/nginx.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      rm -f "$dir/nginx.pid"
    fi
    exit 0 ;;
  start) [ $# -eq 4 ] || usage ;;
  *) usage ;;
esac
root=$(cd "$3" && pwd)
port=$4
nginx=/usr/sbin/nginx
[ -x "$nginx" ] || { echo "nginx-test-server: $nginx missing (scripts/install-deps.sh installs nginx-light)" >&2; exit 1; }
mkdir -p "$dir/tmp"
user_line=""
[ "$(id -u)" = 0 ] && user_line="user root root;"
cat > "$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  log_format rap '\$connection \$request_method \$status "\$http_range"';
  access_log $dir/access.log rap;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 100000;
  keepalive_timeout 120s;
  sendfile on;
  server {
    listen 127.0.0.1:$port;
    root $root;
    location / { autoindex on; autoindex_format json; }
  }
}
CONF
"$nginx" -p "$dir" -c "$dir/nginx.conf"
for _ in $(seq 1 100); do
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
    echo "nginx-test-server: serving $root on http://127.0.0.1:$port"
    exit 0
  fi
  sleep 0.1
done
echo "nginx-test-server: nginx did not come up; see $dir/error.log" >&2
exit 1
