#!/usr/bin/env python3
"""The installed and build-tree manifests: valid JSON, the layer's name and environment switches,
the library's architecture (library_arch), and each naming its own library (the installed one under the install prefix, the build-tree one
the library this build made)."""
import json
import os
import sys

installed, devenv, arch, built_lib, libdir = sys.argv[1:6]


def check(path, want_lib):
    with open(path) as f:
        layer = json.load(f)["layer"]
    problems = []
    if layer["name"] != "VK_LAYER_LOWLAT_limiter":
        problems.append(f"name {layer['name']}")
    if layer["enable_environment"] != {"ENABLE_LOWLAT_LAYER": "1"}:
        problems.append(f"enable_environment {layer['enable_environment']}")
    if layer["disable_environment"] != {"DISABLE_LOWLAT_LAYER": "1"}:
        problems.append(f"disable_environment {layer['disable_environment']}")
    if layer.get("library_arch") != arch:
        problems.append(f"library_arch {layer.get('library_arch')} (want {arch})")
    if layer["library_path"] != want_lib:
        problems.append(f"library_path {layer['library_path']} (want {want_lib})")
    if problems:
        sys.exit(f"FAIL: {path}: " + "; ".join(problems))


check(installed, os.path.join(libdir, "libVkLayer_lowlat.so"))
check(devenv, built_lib)
print("manifests: installed and build-tree manifests name their own libraries")
