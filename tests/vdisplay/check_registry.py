#!/usr/bin/env python3
"""check_registry.py VK_XML SOURCE_DIR — no command of the registry can carry one of the virtual
display's VkSwapchainKHR or VkSurfaceKHR handles to the driver.

From vk.xml, for each of the two handle types: every command that takes one directly (an input: a
value or a const pointer; a command that only writes one, like a create, carries none), inside a
parameter struct, or inside a struct that can be chained (pNext) into one, with aliases. Each must be
implemented (IMPL in its list in vd_commands.h, VD_SWAPCHAIN_COMMANDS or VD_SURFACE_COMMANDS, and
hooked in vd_layer.h/vd_layer.c) or hidden (HIDE: all extensions providing it are hidden, in either
list), or carry the handle only through structs of hidden extensions.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def main():
    root = ET.parse(sys.argv[1]).getroot()
    src = sys.argv[2]
    structs = {t.get("name"): t for t in root.findall("types/type")
               if t.get("category") in ("struct", "union") and t.get("name") and not t.get("alias")}

    def members(s):
        return [m.find("type").text for m in structs[s].findall("member")] if s in structs else []

    extended_by = {}
    for name, t in structs.items():
        for target in (t.get("structextends") or "").split(","):
            if target:
                extended_by.setdefault(target, []).append(name)

    def reach(s, seen):
        if s in seen or s not in structs:
            return
        seen.add(s)
        for m in members(s):
            reach(m, seen)
        for x in extended_by.get(s, []):
            reach(x, seen)

    # Who provides what.
    provided = {}
    for f in root.findall("feature"):
        for req in f.findall("require"):
            for item in req.findall("command") + req.findall("type"):
                provided.setdefault(item.get("name"), set()).add(f.get("name"))
    for e in root.findall("extensions/extension"):
        if "vulkan" not in (e.get("supported") or "").split(","):
            continue
        for req in e.findall("require"):
            for item in req.findall("command") + req.findall("type"):
                provided.setdefault(item.get("name"), set()).add(e.get("name"))

    header = open(os.path.join(src, "vd_commands.h")).read()
    layer_h = open(os.path.join(src, "vd_layer.h")).read()
    layer_c = open(os.path.join(src, "vd_layer.c")).read()
    hooked = {"vk" + h for h in re.findall(r"\bH\((\w+)\)", layer_h)}
    hooked |= set(re.findall(r"\{\"(vk\w+)\",\s*\(PFN_vkVoidFunction\)vd_\w+\}", layer_c))

    def command_list(macro):
        """The IMPL and HIDE entries of one list macro of vd_commands.h."""
        body = re.search(r"#define " + macro + r"\(IMPL, HIDE\)((?:.*\\\n)*.*)", header)
        if not body:
            fail(f"vd_commands.h has no {macro}")
            return set(), {}
        text = body.group(1)
        return (set(re.findall(r"\bIMPL\((vk\w+)\)", text)),
                dict(re.findall(r"\bHIDE\((vk\w+),\s*(VK_\w+)\)", text)))

    lists = {"VkSwapchainKHR": command_list("VD_SWAPCHAIN_COMMANDS"),
             "VkSurfaceKHR": command_list("VD_SURFACE_COMMANDS")}
    hidden_exts = {ext for _, hide in lists.values() for ext in hide.values()}

    for handle, (impl, hide) in lists.items():
        carriers = {}  # command -> (direct, [structs carrying the handle])
        aliases = {}
        for c in root.findall("commands/command"):
            if c.get("alias"):
                aliases[c.get("name")] = c.get("alias")
                continue
            name = c.find("proto/name").text
            seen, direct = set(), False
            for p in c.findall("param"):
                t = p.find("type").text
                text = "".join(p.itertext())
                # An output (a non-const pointer) carries no handle of ours into the driver.
                direct = direct or (t == handle and ("*" not in text or "const" in text))
                reach(t, seen)
            via = sorted(s for s in seen if handle in members(s))
            if direct or via:
                carriers[name] = (direct, via)
        for alias, target in aliases.items():
            if target in carriers:
                carriers[alias] = carriers[target]

        for cmd in sorted(impl):
            if cmd not in hooked:
                fail(f"{cmd} is marked IMPL but no hook is registered for it")
        for cmd, ext in sorted(hide.items()):
            if ext not in provided.get(cmd, set()):
                fail(f"{cmd} is hidden with {ext}, which does not provide it")
        for cmd, (direct, via) in sorted(carriers.items()):
            if cmd in impl:
                status = "implemented"
            elif cmd in hide:
                others = provided.get(cmd, set()) - hidden_exts
                if others:
                    fail(f"{cmd} is hidden but also provided by {sorted(others)}")
                status = "hidden with " + hide[cmd]
            elif not direct and via and all(provided.get(s) and provided[s] <= hidden_exts for s in via):
                status = "carries only " + ",".join(via) + ", from hidden extensions"
            else:
                fail(f"{cmd} can carry a {handle} ({'directly' if direct else ', '.join(via)}) and is "
                     "neither implemented nor hidden")
                continue
            print(f"ok  {cmd}: {status}")
        print(f"{len(carriers)} commands can carry a {handle}")
    print(f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
