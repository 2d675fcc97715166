#!/usr/bin/env python3
"""Writes a one-layer container image as an OCI image layout, for skopeo to push.

usage: oci_image.py DIR TAG

The layer holds one text file; the config names linux/amd64 and the layer's diff id; the
layout's index.json names the manifest TAG (skopeo: `oci:DIR:TAG`).
"""

import gzip
import hashlib
import io
import json
import sys
import tarfile
from pathlib import Path


def blob(layout, data):
    """Stores data under blobs/sha256/ and returns its descriptor fields."""
    digest = hashlib.sha256(data).hexdigest()
    (layout / "blobs" / "sha256" / digest).write_bytes(data)
    return {"digest": f"sha256:{digest}", "size": len(data)}


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    layout, tag = Path(sys.argv[1]), sys.argv[2]
    (layout / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
    (layout / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    text = b"hello from the versola tools stage\n"
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        member = tarfile.TarInfo("hello.txt")
        member.size, member.mode, member.mtime = len(text), 0o644, 1700000000
        archive.addfile(member, io.BytesIO(text))
    layer = gzip.compress(tar.getvalue(), mtime=0)
    config = {"architecture": "amd64", "os": "linux", "config": {},
              "rootfs": {"type": "layers", "diff_ids": [f"sha256:{hashlib.sha256(tar.getvalue()).hexdigest()}"]}}
    manifest = {
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", **blob(layout, json.dumps(config).encode())},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", **blob(layout, layer)}],
    }
    descriptor = {"mediaType": "application/vnd.oci.image.manifest.v1+json", **blob(layout, json.dumps(manifest).encode()),
                  "annotations": {"org.opencontainers.image.ref.name": tag}}
    (layout / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": [descriptor]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
