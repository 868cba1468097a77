# Sourced by scripts/fetch-jars.sh and scripts/fetch-orc-jars.sh: fetches pinned jars from Maven
# Central into a cache folder, once per machine (a jar already present with its pinned SHA-256 is
# kept), and prints each jar's path (one a line).
#
# fetch_pinned_jars WHO DEST ENTRY...   ENTRY: "group/path/artifact/version sha256"

fetch_pinned_jars() {
  local who="$1" dest="$2"
  shift 2
  local central="https://repo1.maven.org/maven2" entry coord sha version artifact jar tmp
  mkdir -p "$dest"
  for entry in "$@"; do
    coord="${entry% *}"
    sha="${entry#* }"
    version="${coord##*/}"
    artifact="$(basename "$(dirname "$coord")")"
    jar="$dest/$artifact-$version.jar"
    if [ -f "$jar" ] && echo "$sha  $jar" | sha256sum -c --quiet - >/dev/null 2>&1; then
      echo "$jar"
      continue
    fi
    tmp="$jar.part.$$"
    curl -sfSL --retry 3 -o "$tmp" "$central/$coord/$artifact-$version.jar"
    if ! echo "$sha  $tmp" | sha256sum -c --quiet - >/dev/null 2>&1; then
      rm -f "$tmp"
      echo "$who: $artifact-$version.jar from Maven Central does not have the pinned SHA-256 $sha" >&2
      return 1
    fi
    mv "$tmp" "$jar"
    echo "$jar"
  done
}
