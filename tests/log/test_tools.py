#!/usr/bin/env python3
"""test_tools.py — tools/lowlat-stats and tools/lowlat-plot on synthetic logs whose numbers are
known by construction (worked out by hand in the comments, not by the tools' own code).

    test_tools.py TOOLS_DIR HEADER     (meson passes tools/ and include/lowlat_log.h)
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

TOOLS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "tools")
HEADER = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..",
                                                             "include", "lowlat_log.h")
sys.path.insert(0, TOOLS)
import lowlatlog  # noqa: E402

REFRESH = 16666667  # ns, 60 Hz
T0 = 5_000_000_000  # ns, an arbitrary boot-relative start


def write_log(path, rows, comments=(), closed=True):
    """rows: dicts of column -> value (missing = unknown). Written the way layer/log/log.c writes."""
    with open(path, "w") as f:
        f.write("# lowlat present log v1; one row per present; (test)\n# game test, pid 1\n")
        f.write(",".join(lowlatlog.COLUMNS) + "\n")
        for r in rows:
            f.write(",".join("" if r.get(c) is None else str(r[c]) for c in lowlatlog.COLUMNS) + "\n")
        for c in comments:
            f.write(c + "\n")
        if closed:
            f.write(f"# closed: {len(rows)} records written, 0 dropped\n")


def sixty_fps_rows():
    """601 presents at 60 Hz: 594 intervals of one refresh and 6 hitches of two (at frames 100,
    200, ..., 600), so 606 refreshes in all. Frame i starts 5 ms before its present, its target is
    2 ms after the present, and it is shown 1 ms after the target plus its slip: 0 refreshes for
    590 frames, 1 for frames 10..17 (8), 2 for frames 20, 21. The pacing wait ends (i % 100) us
    after the target, for the first 600 frames; the last has no target."""
    rows, t = [], T0
    for i in range(601):
        if i:
            t += 2 * REFRESH if i % 100 == 0 else REFRESH
        slip = 1 if 10 <= i <= 17 else 2 if i in (20, 21) else 0
        target = t + 2_000_000 if i < 600 else None
        rows.append({
            "frame": i, "present_id": i + 1, "frame_start_ns": t - 5_000_000, "present_ns": t,
            "wait_begin_ns": t + 100_000, "wait_end_ns": target + (i % 100) * 1000 if target else None,
            "driver_ns": t + 200_000, "target_ns": target, "predicted_ready_ns": 1_500_000,
            "pixel_visible_ns": (t + 2_000_000 + slip * REFRESH + 1_000_000),
            "present_mode": "FIFO", "refresh_ns": REFRESH, "fallback": "timing",
        })
    return rows


def run(tool, *args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, tool), *args], capture_output=True, text=True)


class Stats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.a = os.path.join(cls.tmp.name, "a.csv")
        write_log(cls.a, sixty_fps_rows())
        # The same session with records 300..309 dropped by the writer.
        cls.b = os.path.join(cls.tmp.name, "b.csv")
        rows = [r for r in sixty_fps_rows() if not 300 <= r["frame"] <= 309]
        write_log(cls.b, rows, comments=["# dropped 10 records"], closed=False)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def stats_json(self, *paths):
        p = run("lowlat-stats", "--json", *paths)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)["logs"]

    def test_known_numbers(self):
        (s,) = self.stats_json(self.a)
        self.assertEqual(s["frames"], 601)
        self.assertEqual(s["presents"], 601)
        self.assertEqual(s["dropped"], 0)
        self.assertTrue(s["closed"])
        # 600 intervals over 606 refreshes of 16666667 ns.
        self.assertAlmostEqual(s["duration_s"], 606 * REFRESH / 1e9, places=9)
        self.assertAlmostEqual(s["mean_fps"], 600 / (606 * REFRESH / 1e9), places=6)
        ft = s["frame_time_ms"]
        self.assertAlmostEqual(ft["p50"], REFRESH / 1e6, places=9)
        self.assertAlmostEqual(ft["p95"], REFRESH / 1e6, places=9)
        # Sorted: 594 short, 6 long; p99 sits at rank 599 * 0.99 = 593.01, 1% of the way from the
        # last short interval to the first long one.
        self.assertAlmostEqual(ft["p99"], (REFRESH + 0.01 * REFRESH) / 1e6, places=9)
        self.assertAlmostEqual(ft["max"], 2 * REFRESH / 1e6, places=9)
        # The slowest 1% (6 of 600) and 0.1% (1) are all two-refresh frames: 30 fps.
        self.assertAlmostEqual(s["low_1pct_fps"], 1e9 / (2 * REFRESH), places=6)
        self.assertAlmostEqual(s["low_0_1pct_fps"], 1e9 / (2 * REFRESH), places=6)
        # Errors 0..99 us, six of each: p50 at rank 299.5 between 49 and 50; p99 at rank 593.01,
        # 1% of the way from 98 to 99.
        pe = s["pacing_error_us"]
        self.assertEqual(pe["frames"], 600)
        self.assertAlmostEqual(pe["p50"], 49.5, places=9)
        self.assertAlmostEqual(pe["p99"], 98.01, places=9)
        # Latency = 5 + 2 + 1 ms + slip refreshes: 591 at 8 ms (ranks 0..590), 8 at 8 ms + 1
        # refresh (591..598), 2 at + 2 (599, 600).
        lat = s["latency_ms"]
        self.assertEqual(lat["frames"], 601)
        self.assertEqual(lat["sources"], {"pixel_visible_ns": 601})
        self.assertAlmostEqual(lat["p50"], 8.0, places=9)
        self.assertAlmostEqual(lat["p95"], 8.0, places=9)
        # p99 at rank 600 * 0.99 = 594: a one-refresh frame.
        self.assertAlmostEqual(lat["p99"], 8.0 + REFRESH / 1e6, places=9)
        # The last frame has no target, so 600 frames have a slip.
        self.assertEqual(s["refresh_slips"], {"0": 590, "1": 8, "2": 2})
        self.assertEqual(s["present_modes"], {"FIFO": 601})
        self.assertEqual(s["fallbacks"], {"timing": 601})

    def test_latency_parts(self):
        # a.csv: every frame starts 5 ms before its present and is shown 3 ms after it plus its slip;
        # no GPU report. Game 5 ms; display 3 ms for 591 frames (p50 3 ms), so no queue (a refresh
        # is 16.7 ms) and the game's part is the largest; the verdict says the GPU part is unknown.
        (s,) = self.stats_json(self.a)
        parts = s["latency_parts"]
        self.assertAlmostEqual(parts["game"]["p50_ms"], 5.0, places=9)
        self.assertAlmostEqual(parts["game"]["p99_ms"], 5.0, places=9)
        self.assertIsNone(parts["gpu"]["p50_ms"])
        self.assertIsNone(parts["gpu"]["p99_ms"])
        self.assertIsNone(parts["gpu"]["stage"])
        self.assertAlmostEqual(parts["display"]["p50_ms"], 3.0, places=9)
        # p99 at rank 594 (of 601, from 0): a frame one refresh late.
        self.assertAlmostEqual(parts["display"]["p99_ms"], 3.0 + REFRESH / 1e6, places=9)
        self.assertEqual(parts["display"]["stage"], "first pixel visible")
        self.assertEqual(parts["display"]["from"], "present call")
        self.assertTrue(parts["verdict"].startswith("the game's own CPU time is the largest part"))
        self.assertIn("the GPU part is unknown", parts["verdict"])

        def frames(game_ms, gpu_ms, display_ms, fallback="timing", shown="pixel_out_ns"):
            rows, t = [], T0
            for i in range(100):
                t += REFRESH
                rows.append({"frame": i, "frame_start_ns": t - int(game_ms * 1e6), "present_ns": t,
                             "queue_done_ns": t + int(gpu_ms * 1e6),
                             shown: t + int((max(gpu_ms, 0) + display_ms) * 1e6),
                             "present_mode": "FIFO", "refresh_ns": REFRESH, "fallback": fallback})
            return rows

        cases = {
            # Shown 2.5 refreshes after its GPU work: a queue behind V-Sync.
            "queued": (frames(2, 1, 2.5 * REFRESH / 1e6), "queued behind the display: frames wait 2.5 refreshes "
                                                          "until first pixel out"),
            # 10 ms of GPU work after the call, shown 3 ms later.
            "gpu": (frames(1, 10, 3, fallback="drm", shown="latched_ns"), "GPU-bound"),
            # GPU work done 2 ms before the call: it counts 0; shown 4 ms after the call.
            "early": (frames(6, -2, 4), "the game's own CPU time"),
            # Shown half a refresh after the work: the wait for the next refresh, no queue.
            "vsync": (frames(1, 1, REFRESH / 2e6), "no queue behind the display"),
        }
        for name, (rows, verdict) in cases.items():
            path = os.path.join(self.tmp.name, f"parts-{name}.csv")
            write_log(path, rows)
            (p,) = [x["latency_parts"] for x in self.stats_json(path)]
            with self.subTest(name):
                self.assertTrue(p["verdict"].startswith(verdict), p["verdict"])
                if name == "gpu":
                    self.assertAlmostEqual(p["gpu"]["p50_ms"], 10.0, places=6)
                    self.assertEqual(p["gpu"]["stage"], "ready fence")
                    self.assertEqual(p["display"]["stage"], "taken by the compositor")
                if name == "early":
                    self.assertEqual(p["gpu"]["p50_ms"], 0.0)
                    self.assertAlmostEqual(p["display"]["p50_ms"], 4.0, places=6)
                    self.assertEqual(p["gpu"]["stage"], "queue operations done (display report)")
        table = run("lowlat-stats", os.path.join(self.tmp.name, "parts-queued.csv")).stdout
        self.assertRegex(table, r"(?m)^display p50 \(ms\)\s+41\.667$")
        self.assertRegex(table, r"(?m)^verdict \(parts-queued\.csv\): queued behind the display")

    def test_dropped_records_are_not_long_frames(self):
        (s,) = self.stats_json(self.b)
        self.assertEqual(s["frames"], 591)
        self.assertEqual(s["presents"], 601)  # by frame index: the dropped ones still happened
        self.assertEqual(s["dropped"], 10)
        self.assertFalse(s["closed"])
        # Same span, same rate; the gap 299 -> 310 is not a frame time, so the max is still 2.
        self.assertAlmostEqual(s["mean_fps"], 600 / (606 * REFRESH / 1e9), places=6)
        self.assertAlmostEqual(s["frame_time_ms"]["max"], 2 * REFRESH / 1e6, places=9)

    def test_json_round_trip(self):
        p = run("lowlat-stats", "--json", self.a, self.b)
        data = json.loads(p.stdout)
        self.assertEqual([os.path.basename(s["file"]) for s in data["logs"]], ["a.csv", "b.csv"])
        self.assertEqual(json.loads(json.dumps(data)), data)
        # The table shows the same numbers as the JSON.
        table = run("lowlat-stats", self.a, self.b).stdout
        fps = f"{data['logs'][0]['mean_fps']:.2f}"
        self.assertRegex(table, rf"(?m)^mean fps\s+{re.escape(fps)}\s+{re.escape(fps)}$")
        self.assertRegex(table, r"(?m)^frames\s+601\s+591$")
        self.assertRegex(table, r"(?m)^slips: \+1 refresh\s+8 \(1\.3%\)\s+8 \(1\.4%\)$")

    def test_side_by_side_columns(self):
        lines = run("lowlat-stats", self.a, self.b).stdout.splitlines()
        self.assertRegex(lines[0], r"^\s+a\.csv\s+b\.csv$")
        self.assertTrue(all(len(line.split()) >= 3 for line in lines[1:]), lines)

    def test_no_display_times(self):
        path = os.path.join(self.tmp.name, "cpu.csv")
        rows = [{"frame": i, "present_ns": T0 + i * REFRESH, "fallback": "cpu"} for i in range(10)]
        write_log(path, rows)
        (s,) = self.stats_json(path)
        self.assertIsNone(s["latency_ms"])
        self.assertIsNone(s["refresh_slips"])
        self.assertIsNone(s["pacing_error_us"])
        self.assertAlmostEqual(s["mean_fps"], 1e9 / REFRESH, places=6)
        table = run("lowlat-stats", path).stdout
        self.assertRegex(table, r"(?m)^latency p50 \(ms\)\s+-$")

    def test_empty_and_single_present_logs(self):
        """A session that ended before two presents: no numbers, but no failure either."""
        empty, one, svg = (os.path.join(self.tmp.name, n) for n in ("empty.csv", "one.csv", "few.svg"))
        write_log(empty, [])
        write_log(one, [{"frame": 0, "present_ns": T0}])
        s = self.stats_json(empty, one)
        self.assertEqual([x["frames"] for x in s], [0, 1])
        self.assertEqual([x["mean_fps"] for x in s], [None, None])
        self.assertEqual([x["frame_time_ms"]["p50"] for x in s], [None, None])
        p = run("lowlat-plot", empty, one, "-o", svg)
        self.assertEqual(p.returncode, 0, p.stderr)
        ET.parse(svg)

    def test_errors(self):
        def fails(content, message, binary=False):
            path = os.path.join(self.tmp.name, "bad.csv")
            with open(path, "wb" if binary else "w") as f:
                f.write(content)
            p = run("lowlat-stats", self.a, path)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertEqual(p.stdout, "")
            self.assertRegex(p.stderr, "^lowlat-stats: " + message)
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)

        p = run("lowlat-stats", os.path.join(self.tmp.name, "missing.csv"))
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr, r"^lowlat-stats: .*missing\.csv: no such file\n$")
        fails("", r".*bad\.csv: empty file")
        fails("# only a comment\n", r".*bad\.csv: not a lowlat log: no header row")
        fails("a,b,c\n1,2,3\n", r".*bad\.csv:1: not a lowlat log: the header row lacks frame, present_ns")
        header = ",".join(lowlatlog.COLUMNS) + "\n"
        fails(header + "0,,,12,,\n", r".*bad\.csv:2: 6 fields where the header has 17")
        fails(header + "0,,,x12" + "," * 13 + "\n", r".*bad\.csv:2: column present_ns: 'x12' is not an integer")
        fails(b"\x89PNG\r\n\x1a\n\xff\xfe", r".*bad\.csv: not a lowlat log \(not text\)", binary=True)
        p = run("lowlat-stats")
        self.assertEqual(p.returncode, 2)

    def test_incomplete_last_line_is_a_warning(self):
        path = os.path.join(self.tmp.name, "cut.csv")
        write_log(path, sixty_fps_rows()[:5], closed=False)
        with open(path, "a") as f:
            f.write("5,6,123")  # the game died mid-write
        p = run("lowlat-stats", "--json", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("last line is incomplete", p.stderr)
        self.assertEqual(json.loads(p.stdout)["logs"][0]["frames"], 5)

    def test_help(self):
        for tool in ("lowlat-stats", "lowlat-plot"):
            p = run(tool, "--help")
            self.assertEqual(p.returncode, 0)
            self.assertIn("usage: " + tool, p.stdout)
            self.assertTrue(os.access(os.path.join(TOOLS, tool), os.X_OK), tool + " is not executable")

    def test_columns_match_the_header(self):
        """The tools' column list is the C header's X-macro, in order."""
        with open(HEADER) as f:
            text = f.read()
        macro = text[text.index("#define LOWLAT_LOG_COLUMNS(X)"):text.index("struct lowlat_log_record")]
        self.assertEqual(tuple(re.findall(r"X\((\w+),", macro)), lowlatlog.COLUMNS)


class Plot(unittest.TestCase):
    def test_svg_is_well_formed_with_a_legend(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b, svg = (os.path.join(tmp, n) for n in ("a.csv", "b.csv", "out.svg"))
            write_log(a, sixty_fps_rows())
            # A second log without display times: its latency series is simply absent.
            write_log(b, [{"frame": i, "present_ns": T0 + i * 2 * REFRESH} for i in range(300)])
            p = run("lowlat-plot", a, b, "-o", svg)
            self.assertEqual(p.returncode, 0, p.stderr)
            root = ET.parse(svg).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            self.assertEqual(root.tag, ns + "svg")
            texts = " ".join(t.text or "" for t in root.iter(ns + "text"))
            self.assertIn("a.csv", texts)
            self.assertIn("b.csv", texts)
            for title in ("Frame time", "Latency: frame start to display", "Frame-time distribution (log scale)",
                          "Latency in parts: a.csv (display until first pixel visible)"):
                self.assertIn(title, texts)
            # b.csv has no frame starts: no parts panel of its own.
            self.assertNotIn("Latency in parts: b.csv", texts)
            self.assertIn("verdict: the game's own CPU time is the largest part", texts)
            # Frame time: both logs; latency: only a.csv.
            self.assertEqual(len(list(root.iter(ns + "polyline"))), 3)
            # The histogram's outline per log, and a.csv's three parts stacked.
            self.assertEqual(len(list(root.iter(ns + "polygon"))), 2 + 3)
            for line in root.iter(ns + "polyline"):
                for pair in line.get("points").split():
                    x, y = map(float, pair.split(","))
                    self.assertTrue(0 <= x <= float(root.get("width")) and 0 <= y <= float(root.get("height")))

    def test_svg_renders(self):
        """Where librsvg's converter is installed (not in the test root; on a desktop host), the SVG
        must also render to a PNG."""
        rsvg = shutil.which("rsvg-convert")
        if not rsvg:
            self.skipTest("rsvg-convert not installed")
        with tempfile.TemporaryDirectory() as tmp:
            a, svg, png = (os.path.join(tmp, n) for n in ("a.csv", "out.svg", "out.png"))
            write_log(a, sixty_fps_rows())
            self.assertEqual(run("lowlat-plot", a, "-o", svg).returncode, 0)
            subprocess.run([rsvg, svg, "-o", png], check=True)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_bad_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = run("lowlat-plot", os.path.join(tmp, "nope.csv"), "-o", os.path.join(tmp, "x.svg"))
            self.assertEqual(p.returncode, 1)
            self.assertRegex(p.stderr, r"^lowlat-plot: .*nope\.csv: no such file\n$")
            self.assertFalse(os.path.exists(os.path.join(tmp, "x.svg")))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
