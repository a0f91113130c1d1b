#!/bin/sh
# Builds the file tree the relay's container image carries under its own layers (Jib adds it as an extra directory
# on the empty "scratch" base, so building the image pulls nothing from a registry): a jlink'ed Java runtime in
# /opt/java, the C libraries that runtime links to (copied from the build machine, so the image runs where glibc
# is absent), and /etc/passwd naming the unprivileged user the relay runs as.
#
# Usage: runtime-root.sh ROOT JAVA_HOME MODULES
set -eu
root=$1
java_home=$2
modules=$3

rm -rf "$root"
mkdir -p "$root/etc" "$root/tmp" "$root/config"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=2 \
  --output "$root/opt/java"

# A distribution's JDK may ship its CA certificates as a link to the system's store, which jlink does not follow.
if [ ! -s "$root/opt/java/lib/security/cacerts" ] && [ -s "$java_home/lib/security/cacerts" ]; then
  cp -L "$java_home/lib/security/cacerts" "$root/opt/java/lib/security/cacerts"
fi

# Every shared library any file of the runtime needs, at the path the dynamic loader looks for it.
find "$root/opt/java" -type f \( -name '*.so' -o -perm -u+x \) | while read -r file; do
  ldd "$file" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r library; do
  case $library in "$root"/*) continue ;; esac
  mkdir -p "$root$(dirname "$library")"
  cp -L "$library" "$root$library"
done

cat > "$root/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/sbin/nologin
outbox4j:x:65532:65532:outbox4j relay:/tmp:/sbin/nologin
PASSWD
cat > "$root/etc/group" <<GROUP
root:x:0:
outbox4j:x:65532:
GROUP
