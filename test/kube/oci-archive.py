#!/usr/bin/env python3
"""oci-archive.py: an OCI image archive of one static binary, FROM scratch,
for `ctr images import` (issue 37: no image can be pulled here, and the
pod sandbox's pause image is ours). Standard library only, byte for byte
the same for the same binary (fixed times, owners and gzip header).

    test/kube/oci-archive.py BINARY NAME OUT.tar

The image holds the binary alone, at /BASENAME, as its entrypoint; NAME is
its full name, such as docker.io/throttlebench/pause:tb.
"""
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile


def blob(data):
    return "sha256:" + hashlib.sha256(data).hexdigest(), data


def tar_of(files):
    """A tar of (name, bytes, mode), fixed metadata."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data, mode in files:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: oci-archive.py BINARY NAME OUT.tar")
    binary, name, out = sys.argv[1:]
    exe = os.path.basename(binary)
    with open(binary, "rb") as f:
        layer_tar = tar_of([(exe, f.read(), 0o755)])
    gz = io.BytesIO()
    with gzip.GzipFile(fileobj=gz, mode="wb", mtime=0) as z:
        z.write(layer_tar)
    layer_digest, layer = blob(gz.getvalue())
    diff_id, _ = blob(layer_tar)
    config_digest, config = blob(json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Entrypoint": ["/" + exe]},
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
    }, sort_keys=True).encode())
    manifest_digest, manifest = blob(json.dumps({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": len(config)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer_digest, "size": len(layer)}],
    }, sort_keys=True).encode())
    index = json.dumps({
        "schemaVersion": 2,
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_digest, "size": len(manifest),
            "annotations": {"io.containerd.image.name": name, "org.opencontainers.image.ref.name": name.rsplit(":", 1)[-1]},
        }],
    }, sort_keys=True).encode()
    files = [("oci-layout", b'{"imageLayoutVersion":"1.0.0"}', 0o644), ("index.json", index, 0o644)]
    for digest, data in ((layer_digest, layer), (config_digest, config), (manifest_digest, manifest)):
        files.append(("blobs/sha256/" + digest.split(":", 1)[1], data, 0o644))
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(tar_of(files))
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
