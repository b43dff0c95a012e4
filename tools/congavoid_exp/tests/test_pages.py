# SPDX-License-Identifier: GPL-2.0
"""Results pages (provenance header, index) and the testbed snapshot's
parser."""

import datetime
import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from congavoid_exp import meta, pages, report
from .test_report import _results

BENCH = Path(__file__).resolve().parents[3] / "selftests" / "bench"


def lint_docs():
    """tools/lint-docs as a module."""
    from importlib.machinery import SourceFileLoader
    path = Path(__file__).resolve().parents[2] / "lint-docs"
    return SourceFileLoader("lint_docs", str(path)).load_module()


class Pages(unittest.TestCase):
    def test_kernel_short(self):
        self.assertEqual(pages.kernel_short("6.12.117+deb12-amd64"), "6.12")
        self.assertEqual(pages.kernel_short("6.1.0-56-amd64"), "6.1")

    def test_command_inside_vm(self):
        with mock.patch.dict(os.environ, {"CONGAVOID_VM": "tools/vm 6.1"}):
            self.assertEqual(pages.command(["a b", "-x"]),
                             "tools/vm 6.1 -- 'a b' -x")
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(pages.command(["tools/x", "3"]), "tools/x 3")

    def test_page_header_and_index(self):
        when = datetime.datetime(2026, 1, 2, 3, 4,
                                 tzinfo=datetime.timezone.utc)
        with tempfile.TemporaryDirectory() as t, \
                mock.patch.dict(os.environ, {"CONGAVOID_MACHINE": "box"}):
            prov = pages.provenance("run it", "6.12.117+deb12-amd64", when)
            p = pages.write("x-6.12", "X", "body", prov, t)
            text = p.read_text()
            self.assertEqual(set(prov["tools"]) >= {"iperf3", "iproute2",
                                                    "python"}, True)
            for want in ("# X\n", "- command: `run it`", "- tools: iperf3 ",
                         "- kernel: 6.12.117+deb12-amd64", "- machine: box",
                         "- date: 2026-01-02 03:04 UTC", "body\n"):
                self.assertIn(want, text)
            index = (Path(t) / "README.md").read_text()
            self.assertIn("| [X](x-6.12.md) | 6.12 | 2026-01-02 03:04 UTC |",
                          index)
            # a page without a header is not listed
            (Path(t) / "hand.md").write_text("# by hand\n")
            pages.write_index(t)
            self.assertNotIn("hand.md", (Path(t) / "README.md").read_text())

    def test_tool_versions(self):
        # the guest's tools from their output, the host's from tools/vm
        outs = {"iperf3": "iperf 3.12 (cJSON 1.7.15)\n",
                "tc": "tc utility, iproute2-6.1.0, libbpf 1.1.2\n"}

        def run(argv, **kw):
            if argv[0] not in outs:
                raise FileNotFoundError(argv[0])
            return mock.Mock(stdout=outs[argv[0]], stderr="", returncode=0)
        with mock.patch.object(pages.subprocess, "run", run), \
                mock.patch.dict(os.environ, {"CONGAVOID_HOST_TOOLS":
                                             "qemu=7.2.22;virtme-ng=1.42"}):
            t = pages.tool_versions()
        self.assertEqual(t["iperf3"], "3.12")
        self.assertEqual(t["iproute2"], "6.1.0")
        self.assertIsNone(t["ethtool"])
        self.assertEqual((t["qemu"], t["virtme-ng"]), ("7.2.22", "1.42"))
        self.assertIn("iperf3 3.12, iproute2 6.1.0, ethtool not installed",
                      pages.format_tools(t))

    def test_mean_sd(self):
        self.assertEqual(pages.mean_sd([]), (None, None))
        self.assertEqual(pages.mean_sd([2.0]), (2.0, None))
        m, sd = pages.mean_sd([1.0, 2.0, 3.0])
        self.assertAlmostEqual(m, 2.0)
        self.assertAlmostEqual(sd, 1.0)
        # a missing value is a missing mean, not the mean of the others
        self.assertEqual(pages.mean_sd([1.0, None, 3.0]), (None, None))

    def test_experiment_page(self):
        with tempfile.TemporaryDirectory() as t:
            d = Path(t) / "run"
            d.mkdir()
            res = _results(d)
            res["meta"] = {"command": "tools/vm 6.12 -- tools/experiment "
                           "run t", "kernel": "6.12.117+deb12-amd64",
                           "machine": "box", "date": "2026-01-02 03:04 UTC",
                           "git": "abc"}
            (d / "results.json").write_text(json.dumps(res))
            res["meta"]["tools"] = {"iperf3": "3.12"}
            (d / "results.json").write_text(json.dumps(res))
            (d / "a_x=1" / "rep1" / "trace.txt").write_text("x" * 5000)
            # an earlier page of this run (make demo's results/demo/page)
            # is not raw data
            (d / "page").mkdir()
            (d / "page" / "t-6.12.md").write_text("old page")
            (d / "page" / "t-6.12.tar.xz").write_bytes(b"old archive")
            (d / "table.md").write_text("| table |")
            report.plots(res, d)
            p = report.page(d, Path(t) / "pages")
            self.assertEqual(p.name, "t-6.12.md")
            text = p.read_text()
            self.assertIn("- project revision: abc", text)
            self.assertIn("- tools: iperf3 3.12, matplotlib (plots) ", text)
            self.assertIn("mean ± sample standard deviation of 2", text)
            self.assertIn("| a x=1 |", text)
            # the headline plot, the time series and the sweep beside it,
            # each with its caption
            for f in ("t-6.12.png", "t-6.12-series.png",
                      "t-6.12-sweep.png"):
                self.assertIn(f"]({f})", text)
                self.assertTrue((p.parent / f).exists(), f)
            self.assertIn("Throughput against queueing delay", text)
            # the raw data: results.json and the samples, not the plots
            # nor the packet trace (said, with its size)
            import tarfile
            with tarfile.open(p.parent / "t-6.12.tar.xz") as tar:
                names = sorted(tar.getnames())
            self.assertIn("t-6.12/results.json", names)
            self.assertIn("t-6.12/table.md", names)
            self.assertFalse([n for n in names if "/page/" in n], names)
            self.assertIn("t-6.12/a_x=1/rep1/samples.jsonl", names)
            self.assertFalse([n for n in names if n.endswith(".png") or
                              n.endswith("trace.txt")], names)
            self.assertIn("](t-6.12.tar.xz) (", text)
            self.assertIn("Left out: the packet traces of `--trace` "
                          "(`trace.txt`, 5 KiB", text)
            # tools/lint-docs --results finds nothing missing from the
            # page but the third repetition
            self.assertEqual(lint_docs().incomplete(p),
                             ["3 repetitions (found 2)"])


    def test_publish_needs_three_repetitions(self):
        # tools/experiment page into docs/results refuses a run of fewer
        # than 3 repetitions; --to writes it elsewhere
        import contextlib
        import io
        from congavoid_exp import __main__ as cli
        with tempfile.TemporaryDirectory() as t:
            d = Path(t) / "run"
            d.mkdir()
            res = _results(d)
            (d / "results.json").write_text(json.dumps(res))
            err = io.StringIO()
            with contextlib.redirect_stderr(err), \
                    mock.patch.object(report, "page") as page:
                self.assertEqual(cli.main(["page", str(d)]), 2)
                page.assert_not_called()
                self.assertIn("has 2 repetition(s)", err.getvalue())
                with contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(cli.main(["page", str(d), "--to", t]),
                                     0)
                page.assert_called_once()


class Benchstat(unittest.TestCase):
    def test_ratio(self):
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "benchstat", BENCH / "benchstat.py")
        bs = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bs)
        r = bs.ratio([90, 100, 110, 50], [100, 100, 100, 0])
        self.assertEqual(r["rounds"], 3)        # a round of 0 is left out
        self.assertEqual(r["median"], 1.0)
        self.assertAlmostEqual(r["mean"], 1.0)
        self.assertAlmostEqual(r["sd"], 0.1)
        self.assertEqual(bs.read_arms("a 1 2\nb 3\na 4\n"),
                         {"a": [1, 2, 4], "b": [3]})
        # the raw data goes beside the page, named after it
        with tempfile.TemporaryDirectory() as t:
            raw = Path(t) / "nic_pps-6.12.117+deb12-amd64.json"
            raw.write_text("x" * 3000)
            link = bs.raw_beside(raw, "nic_pps-6.12", Path(t) / "pages")
            self.assertEqual(link, "[nic_pps-6.12.json](nic_pps-6.12.json)"
                             " (3 KiB)")
            self.assertEqual((Path(t) / "pages" / "nic_pps-6.12.json")
                             .read_text(), "x" * 3000)
            # the page's figure: every round of every arm and the ratios
            raw.write_text(json.dumps({
                "rounds": 3, "unit": "median pps",
                "pps": {"a": [10, 11, 12], "b": [9, 10, 12]},
                "ratio_arms": {"a/b": ["a", "b"]}}))
            md = bs.plot_beside(raw, "x-6.12", Path(t) / "pages")
            self.assertTrue(md.startswith("![Left: each arm's figure"), md)
            self.assertIn("](x-6.12.png)", md)
            self.assertEqual((Path(t) / "pages" / "x-6.12.png")
                             .read_bytes()[:4], b"\x89PNG")
            # a benchmark page of these parts passes tools/lint-docs
            # --results (its caption says why no throughput-delay plot);
            # one without them lacks each
            pg = Path(t) / "pages" / "x-6.12.md"
            pg.write_text("# x\n\n- tools: iperf3 3.12\n\n3 rounds.\n\n"
                          f"{md}\n\nRaw data: {link}.\n")
            self.assertEqual(lint_docs().incomplete(pg), [])
            pg.write_text("# x\n\n10 rounds in the paper; 2 rounds here.\n\n"
                          "![a](gone.png)\n\n*a*\n")
            self.assertEqual(lint_docs().incomplete(pg), [
                "tools' versions", "raw data beside it",
                "3 repetitions (found 2)",
                "a throughput-delay picture (or a caption saying why none)"])
            # the mutation page is a list of verdicts: no repetitions
            # nor picture asked of it
            mu = Path(t) / "pages" / "mutation.md"
            mu.write_text("# m\n\n- tools: qemu 7.2\n\n"
                          f"Raw data: {link}.\n")
            self.assertEqual(lint_docs().incomplete(mu), [])
            raw.write_text("{}")       # no figures: no plot, said so
            self.assertTrue(bs.plot_beside(raw, "y-6.12", Path(t))
                            .startswith("No plot: "))


class Snapshot(unittest.TestCase):
    def test_parse(self):
        text = ("S /proc/sys/net/ipv4/tcp_ecn 1\n"
                "S /proc/sys/net/ipv4/tcp_rmem 4096\t131072\t33554432\n"
                "D eth0\n"
                "Features for eth0:\n"
                "rx-checksumming: on\n"
                "tcp-segmentation-offload: on\n"
                "\ttx-tcp-segmentation: on\n"
                "generic-receive-offload: off [fixed]\n"
                "Q\n"
                '[{"kind": "decbit", "handle": "1:", "packets": 7}]\n')
        s = meta.parse_snapshot(text)
        self.assertEqual(s["sysctl"]["net.ipv4.tcp_ecn"], "1")
        self.assertEqual(s["sysctl"]["net.ipv4.tcp_rmem"],
                         "4096 131072 33554432")
        self.assertEqual(s["offloads"]["eth0"],
                         {"generic-receive-offload": "off",
                          "tcp-segmentation-offload": "on"})
        self.assertEqual(s["qdiscs"][0]["kind"], "decbit")
        self.assertEqual(meta.parse_snapshot("Q\n[]\n")["qdiscs"], [])


if __name__ == "__main__":
    unittest.main()
