package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/report/htmlreport"
)

// wide is a report as a study writes it: five targets with long labels
// and settings that differ with long values (a wide "What differs" and
// environment table), a second workload run at one thread count only.
func wide(t *testing.T) []compare.Input {
	t.Helper()
	var ins []compare.Input
	for i, label := range []string{"postgres-16-default-settings", "postgres-16-tuned-shared-buffers", "pgbouncer-transaction-pool",
		"mariadb-11.4-innodb-default", "mariadb-11.4-innodb-flush-2"} {
		f := sweep(label, 1+float64(i)/4)
		f.Target.URL = "postgres://bench:xxxxx@a-long-host-name-of-the-database-server-" + label + ".example.internal:5432/bench?sslmode=disable"
		f.Target.Settings = map[string]string{
			"shared_buffers":     fmt.Sprintf("%dMB", 128<<i),
			"effective_io_conc":  strings.Repeat("x", 10*i),
			"synchronous_commit": []string{"on", "off", "local", "remote_write", "remote_apply"}[i],
			"wal_level":          "replica-with-a-rather-long-setting-value-" + label,
		}
		ins = append(ins, compare.Input{Path: "/var/lib/dbarena/results/2026-11-21/" + label + "/oltp_read_write.json", File: f})
	}
	one := sweep("postgres-16-default-settings", 1)
	one.Workload.Name = "oltp_point_select"
	one.Runs = one.Runs[1:2]
	ins = append(ins, compare.Input{Path: "point.json", File: one})
	return ins
}

func writeWide(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := htmlreport.Write(&b, wide(t), htmlreport.Options{Generated: time.Unix(0, 0), Tool: "dbarena 0.1.0-dev"}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// chartOptions are the charts' options by id, as the page hands them to
// the library.
func chartOptions(t *testing.T, page string) map[string]map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?m)var charts = (.*);$`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no chart options in the page")
	}
	var charts []struct {
		ID     string         `json:"id"`
		Option map[string]any `json:"option"`
	}
	if err := json.Unmarshal([]byte(m[1]), &charts); err != nil {
		t.Fatalf("chart options: %v", err)
	}
	out := map[string]map[string]any{}
	for _, c := range charts {
		out[c.ID] = c.Option
	}
	return out
}

// TestChartOptions: no chart has a paged legend; a workload run at a
// single thread count is drawn as bars; every run of a workload shares its
// over-time axes, which start at zero; the header names dbarena once.
func TestChartOptions(t *testing.T) {
	page := writeWide(t)
	charts := chartOptions(t, page)
	for id, o := range charts {
		if l, ok := o["legend"].(map[string]any); ok && l["type"] == "scroll" {
			t.Errorf("chart %s has a paged legend", id)
		}
	}
	for _, id := range []string{"w1-tps", "w1-lat"} {
		for _, s := range charts[id]["series"].([]any) {
			if typ := s.(map[string]any)["type"]; typ != "bar" {
				t.Errorf("chart %s of a single thread count draws %v, want bar", id, typ)
			}
		}
	}
	for _, id := range []string{"w0-tps", "w0-lat"} {
		for _, s := range charts[id]["series"].([]any) {
			if typ := s.(map[string]any)["type"]; typ != "line" {
				t.Errorf("chart %s of a sweep draws %v, want line", id, typ)
			}
		}
	}
	// Runs 1-15 are oltp_read_write's, run 16 oltp_point_select's.
	var first []any
	for n := 1; n <= 15; n++ {
		id := fmt.Sprintf("run%d-time", n)
		axes := charts[id]["yAxis"].([]any)
		var got []any
		for _, a := range axes {
			a := a.(map[string]any)
			if a["min"] != 0.0 {
				t.Errorf("%s: axis %v starts at %v, want 0", id, a["name"], a["min"])
			}
			got = append(got, a["max"])
		}
		if got[0] == nil || got[1] == nil {
			t.Errorf("%s: axes without a fixed maximum: %v", id, got)
		}
		if first == nil {
			first = got
		} else if fmt.Sprint(got) != fmt.Sprint(first) {
			t.Errorf("%s: axes end at %v, run1's at %v: the runs of a workload must share a scale", id, got, first)
		}
	}
	if strings.Contains(page, "dbarena dbarena") {
		t.Error(`the page says "dbarena dbarena"`)
	}
	if !strings.Contains(page, "Written by dbarena 0.1.0-dev on") {
		t.Error("the page does not name the dbarena version that wrote it")
	}
}

// measure is what the page reports of its own layout in the browser.
type measure struct {
	InnerWidth  int      `json:"innerWidth"`
	ScrollWidth int      `json:"scrollWidth"`
	Charts      int      `json:"charts"`
	Paged       []string `json:"paged"`       // charts with a scroll legend or its "1/2" pager
	Overflowing []string `json:"overflowing"` // elements past the right edge outside a scrolling box
	Scrolled    []string `json:"scrolled"`    // tables wider than their box, which scrolls
	// Bars are the heights in px of each chart's bars (the paths filled
	// with a series' colour), by chart id, Bottoms where they end below;
	// Texts are the chart's text.
	Bars    map[string][]float64 `json:"bars"`
	Bottoms map[string][]float64 `json:"bottoms"`
	Texts   map[string][]string  `json:"texts"`
}

// measureJS runs in the page once the charts have drawn and writes its
// findings into the DOM as JSON.
const measureJS = `<script>
setTimeout(function () {
  var m = {innerWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth, charts: 0, paged: [], overflowing: [], scrolled: [], bars: {}, bottoms: {}, texts: {}};
  var fills = ["#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"];
  document.querySelectorAll(".chart").forEach(function (el) {
    m.charts++;
    m.bars[el.id] = [];
    m.bottoms[el.id] = [];
    m.texts[el.id] = [];
    el.querySelectorAll("path").forEach(function (p) {
      var f = (p.getAttribute("fill") || "").toLowerCase();
      // A bar: a closed path filled with a series' colour.
      if (fills.indexOf(f) >= 0 && /Z\s*$/i.test(p.getAttribute("d") || "")) {
        var b = p.getBBox();
        if (b.width > 0) { m.bars[el.id].push(Math.round(b.height * 100) / 100); m.bottoms[el.id].push(Math.round((b.y + b.height) * 100) / 100); }
      }
    });
    el.querySelectorAll("text").forEach(function (t) { m.texts[el.id].push(t.textContent); });
    var c = echarts.getInstanceByDom(el);
    var legends = c ? (c.getOption().legend || []) : [];
    var paged = legends.some(function (l) { return l.type === "scroll" && l.show !== false; });
    el.querySelectorAll("text").forEach(function (t) { if (/^\s*\d+\/\d+\s*$/.test(t.textContent)) { paged = true; } });
    if (paged) { m.paged.push(el.id); }
  });
  function scrolls(el) {
    for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if ((o === "auto" || o === "scroll") && p.getBoundingClientRect().right <= window.innerWidth + 1) { return true; }
    }
    return false;
  }
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.closest("svg") || el.tagName === "SCRIPT") { return; }
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > window.innerWidth + 1 && !scrolls(el)) {
      m.overflowing.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className : "") + " right " + Math.round(r.right));
    }
  });
  document.querySelectorAll(".scroll").forEach(function (el) {
    if (el.scrollWidth > el.clientWidth + 1) { m.scrolled.push(el.firstElementChild.className); }
  });
  window.parent.postMessage(JSON.stringify(m), "*");
}, 500);
</script>`

// browse loads path in headless chromium in a frame of the given width
// (headless windows are at least 500 px wide, a frame can be a phone's):
// it saves a screenshot to shot and returns the frame's findings (see
// measureJS), which the frame posts to the page around it.
func browse(t *testing.T, path string, width int, shot string) string {
	t.Helper()
	return browseTall(t, path, width, 2400, shot)
}

// browseTall is browse in a frame and window of the given height.
func browseTall(t *testing.T, path string, width, height int, shot string) string {
	t.Helper()
	outer := filepath.Join(filepath.Dir(path), fmt.Sprintf("frame-%d.html", width))
	frame := fmt.Sprintf(`<!DOCTYPE html><html><body style="margin:0"><iframe src="%s" style="width:%dpx;height:%dpx;border:0"></iframe>
<script>window.addEventListener("message", function (e) { var p = document.createElement("pre"); p.id = "dbarena-measure"; p.textContent = e.data; document.body.appendChild(p); });</script>
</body></html>`, filepath.Base(path), width, height)
	if err := os.WriteFile(outer, []byte(frame), 0o644); err != nil {
		t.Fatal(err)
	}
	path = outer
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		dir := t.TempDir()
		args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--hide-scrollbars",
			"--user-data-dir=" + filepath.Join(dir, "profile"), fmt.Sprintf("--window-size=%d,%d", max(width, 500), height),
			"--virtual-time-budget=10000"}, args...)
		cmd := exec.CommandContext(ctx, chromium(t), append(args, "file://"+path)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, stderr.String())
		}
		return stdout.String()
	}
	run("--screenshot=" + shot)
	if _, err := os.Stat(shot); err != nil {
		t.Fatalf("chromium took no screenshot: %v", err)
	}
	return run("--dump-dom")
}

// TestLayoutInBrowser opens a wide report in headless Chromium at 1,400
// px and at a phone's 390 px: the page never scrolls sideways (wide tables
// scroll in their own box), nothing sticks out past the window, and no
// chart pages its legend. The screenshots stay in the test's temporary
// directory; their paths are logged (go test -v, or a failure, shows them).
func TestLayoutInBrowser(t *testing.T) {
	page := writeWide(t)
	i := strings.LastIndex(page, "</body>")
	page = page[:i] + measureJS + page[i:]
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := screenshotDir(t)
	for _, width := range []int{1400, 390} {
		t.Run(fmt.Sprintf("width=%d", width), func(t *testing.T) {
			shot := filepath.Join(shots, fmt.Sprintf("report-%dpx.png", width))
			dom := browse(t, path, width, shot)
			t.Logf("screenshot: %s", shot)
			m := regexp.MustCompile(`<pre id="dbarena-measure">([^<]*)</pre>`).FindStringSubmatch(dom)
			if m == nil {
				t.Fatal("the page did not report its layout")
			}
			var got measure
			if err := json.Unmarshal([]byte(strings.ReplaceAll(m[1], "&quot;", `"`)), &got); err != nil {
				t.Fatalf("layout %s: %v", m[1], err)
			}
			if got.InnerWidth != width {
				t.Errorf("window %d px wide, want %d", got.InnerWidth, width)
			}
			if got.Charts != 21 {
				t.Errorf("%d charts measured, want 21", got.Charts)
			}
			if got.ScrollWidth > got.InnerWidth {
				t.Errorf("the page scrolls sideways: %d px wide in a %d px window (screenshot %s)", got.ScrollWidth, got.InnerWidth, shot)
			}
			if len(got.Overflowing) > 0 {
				t.Errorf("past the window's right edge: %q (screenshot %s)", got.Overflowing, shot)
			}
			// At a desktop's width the settings that differ wrap: none
			// is cut off at the table's edge.
			if width >= 1400 && slices.Contains(got.Scrolled, "differences") {
				t.Errorf("the \"What differs\" table is wider than the page (screenshot %s)", shot)
			}
			if len(got.Paged) > 0 {
				t.Errorf("charts with a paged legend: %q (screenshot %s)", got.Paged, shot)
			}
		})
	}
}

// A MariaDB server is named as one in the environment table, though its
// result file's engine is "mysql".
func TestMariaDBIsNamed(t *testing.T) {
	f := sweep("", 1)
	f.Target.Engine, f.Target.ServerVersion = "mysql", "MariaDB 11.4.2"
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []compare.Input{{Path: "m.json", File: f}}, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<td class="l">mariadb</td><td class="l">MariaDB 11.4.2</td>`) {
		t.Error("the environment table does not name the server MariaDB")
	}
}

// measured writes page (with measureJS) to a temporary directory, opens
// it in headless Chromium at width × height px and returns what the page
// measured; the screenshot, name-WIDTHpx.png in shots, is logged.
func measured(t *testing.T, page string, width, height int, shots, name string) measure {
	t.Helper()
	i := strings.LastIndex(page, "</body>")
	page = page[:i] + measureJS + page[i:]
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(shots, fmt.Sprintf("%s-%dpx.png", name, width))
	dom := browseTall(t, path, width, height, shot)
	t.Logf("screenshot: %s", shot)
	m := regexp.MustCompile(`<pre id="dbarena-measure">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the page did not report its layout")
	}
	var got measure
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("layout %s: %v", m[1], err)
	}
	if got.ScrollWidth > got.InnerWidth || len(got.Overflowing) > 0 {
		t.Errorf("the page is %d px wide in a %d px window, past its edge: %q (screenshot %s)", got.ScrollWidth, got.InnerWidth, got.Overflowing, shot)
	}
	return got
}

// screenshotDir is where a test's screenshots go: $DBARENA_SCREENSHOTS
// when set (kept, to look at), else the test's temporary directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("DBARENA_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// TestFiguresInBrowser renders the reports of the studies' conventions
// in headless Chromium at 1,400 px and checks the drawn charts: a
// workload at one thread count with a 16.8 s p99 beside 2 ms medians has
// latency bars on a log axis, every one of them visibly tall; the runs'
// charts plot TR/s over time; the operations tables of TPC-E's eleven
// operations (long names, counts in the millions, 16,800 ms) fit their
// half of the page without scrolling; a relative report draws the
// baseline's bar twice the height of a target at half its TR/s; a report
// of the analytic timing model draws each run's cold and hot bars per
// query and no chart over time. The screenshots go to screenshotDir;
// their paths are logged (go test -v, or a failure, shows them).
func TestFiguresInBrowser(t *testing.T) {
	shots := screenshotDir(t)
	has := func(texts []string, s string) bool {
		return slices.ContainsFunc(texts, func(x string) bool { return strings.Contains(x, s) })
	}
	t.Run("tpce", func(t *testing.T) {
		ins := tpceInputs()
		ins[0].File.Runs[0].LatencyMS.P50 = 0.4
		m := measured(t, write(t, ins, htmlreport.Options{}), 1400, 3000, shots, "tpce")
		bars := m.Bars["w0-lat"]
		if len(bars) != 8 {
			t.Fatalf("%d latency bars drawn, want 8: %v", len(bars), bars)
		}
		// On a linear axis the 2 ms p50 beside 16,800 ms would be 0.03
		// px of a 280 px plot.
		if low := slices.Min(bars); low < 20 {
			t.Errorf("the shortest latency bar is %.2f px tall, want 20 or more (bars %v)", low, bars)
		}
		// Every bar rises from the axis, the 0.4 ms p50 too (a log
		// axis' bars start at 1 unless told otherwise: it would hang
		// down from there).
		if b := m.Bottoms["w0-lat"]; slices.Max(b)-slices.Min(b) > 1 {
			t.Errorf("the latency bars end at %v px: not all on the axis", b)
		}
		if !has(m.Texts["w0-lat"], "log scale") {
			t.Errorf("the latency chart does not say its axis is log: %q", m.Texts["w0-lat"])
		}
		for _, id := range []string{"run1-time", "run2-time"} {
			if !has(m.Texts[id], "TR/s") || has(m.Texts[id], "tps") {
				t.Errorf("%s does not plot TR/s: %q", id, m.Texts[id])
			}
		}
		if slices.Contains(m.Scrolled, "ops") {
			t.Errorf("an operations table scrolls at 1400 px: %q", m.Scrolled)
		}
		// On a phone the tables scroll in their boxes, the page does
		// not (measured checks).
		measured(t, write(t, ins, htmlreport.Options{}), 390, 3000, shots, "tpce")
	})
	t.Run("relative", func(t *testing.T) {
		m := measured(t, write(t, tpceInputs(), htmlreport.Options{Relative: true}), 1400, 2400, shots, "relative")
		if !has(m.Texts["w0-tps"], "relative to pg at 4 threads") {
			t.Errorf("the headline chart does not say it is relative: %q", m.Texts["w0-tps"])
		}
		bars := m.Bars["w0-tps"]
		if len(bars) != 2 || math.Abs(bars[0]/bars[1]-2) > 0.05 {
			t.Errorf("headline bars %v px, want the baseline's (1.00x) twice the other's (0.50x)", bars)
		}
	})
	t.Run("tries", func(t *testing.T) {
		m := measured(t, write(t, docolap(t), htmlreport.Options{}), 1400, 2400, shots, "tries")
		for _, id := range []string{"run1-tries", "run2-tries"} {
			// Five queries, cold and hot: a bar each (D's hot try on
			// postgres took 0.4 ms of a 0.5 s axis: under a pixel).
			if n := len(m.Bars[id]); n < 9 {
				t.Errorf("%s: %d bars, want cold and hot of five queries", id, n)
			}
			if !has(m.Texts[id], "cold (first try)") || !has(m.Texts[id], "hot (best of the others)") {
				t.Errorf("%s: no legend of cold and hot: %q", id, m.Texts[id])
			}
		}
		if _, ok := m.Bars["run1-time"]; ok {
			t.Error("a run of tries has a chart over time")
		}
		if slices.Contains(m.Scrolled, "tries") {
			t.Errorf("a run's table of tries scrolls at 1400 px: %q", m.Scrolled)
		}
	})
}
