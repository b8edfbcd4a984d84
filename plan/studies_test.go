package plan_test

import (
	"encoding/json"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/plan"
)

// studyPage is what a study's report.html must show: its headline table's
// title (the study's metric and its percentage convention), the headline
// chart's title, header cells (the changes' and the server columns'),
// whether it has the retries table and chart, and the figure the first
// run's chart over time plots (its headline, "" for a run of tries,
// which has no such chart).
type studyPage struct {
	title, chart string
	headers      []string
	retries      bool
	overTime     string
	more         []string // other text the page must have
}

var studyPages = map[string]studyPage{
	"airline-isolation.yaml": {
		title:    "airline: tps (/s), higher is better; changes against pg/rc; average: means, and the change of the means; beside each column its retries_per_s (/s), retry_pct (medians of the runs)",
		chart:    "tps vs threads",
		headers:  []string{"pg/ser vs pg/rc", "pg/rc retries_per_s", "pg/ser retry_pct"},
		retries:  true,
		overTime: "tps",
		more:     []string{"tps counts booking transactions: the workload has no other", "% of committed"},
	},
	"docolap-study.yaml": {
		title:   "docolap: seconds per query, 2 tries each on one connection; cold is the first try, hot the best of the others (lowest–highest of the tries in brackets); % speedup is (S−F)/S, S the slower, F the faster, named",
		chart:   "Cold: seconds per query (the first try)",
		headers: []string{"postgres cold", "mongodb cold", "cold % speedup", "postgres hot", "hot % speedup"},
		more: []string{"first tries: postgres cold; mongodb lukewarm", "answers: all 5 the same as every other column's that answered, rows and hash",
			`<td class="l">A</td><td>0.1696</td><td>0.001565</td>`},
	},
	"jsonbench.yaml": {
		title:   "jsonbench: seconds per query, 3 tries each on one connection; cold is the first try, hot the best of the others (lowest–highest of the tries in brackets); % speedup is (S−F)/S, S the slower, F the faster, named",
		chart:   "Cold: seconds per query (the first try)",
		headers: []string{"postgres cold", "mongodb cold", "cold % speedup", "postgres hot", "hot % speedup"},
		more:    []string{"answers: all 5 the same as every other column's that answered, rows and hash", `<td class="l">Q1</td>`},
	},
	"knobs-edb.yaml": {
		title:    "tpcc: NOPM (/min), higher is better; changes against the column before; average: means, and the change of the means; beside each column its server_cpu_pct, pg_checkpoints (medians of the runs)",
		chart:    "NOPM (/min) vs threads",
		headers:  []string{"wal vs base", "wal+sb vs wal", "base server_cpu_pct", "wal+sb pg_checkpoints"},
		overTime: "NOPM",
	},
	"edb-sequence.yaml": {
		title:    "tpcc: NOPM (/min), higher is better; changes against the column before; beside each column its server_cpu_pct_host (%), pg_checkpoints, host_iowait_pct (medians of the runs)",
		chart:    "NOPM (/min) vs threads",
		headers:  []string{"NOPM", "server_cpu_pct_host", "pg_checkpoints", "change"},
		overTime: "NOPM",
		more:     []string{"os.vm.dirty_background_bytes", "os.transparent_hugepage.enabled"},
	},
	"ongres-study.yaml": {
		title:    "airline: tps (/s), higher is better; changes against pg/rc; average: means, and the change of the means; beside each column its retries_per_s (/s), retry_pct (medians of the runs)",
		chart:    "tps vs threads",
		headers:  []string{"pg/ser vs pg/rc", "mongo/txn vs pg/rc", "pg/ser retries_per_s", "mongo/txn retry_pct"},
		retries:  true,
		overTime: "tps",
		more:     []string{"pgbouncer", "cold (server restarted, OS cache kept)"},
	},
	"payments-pg-vs-mariadb.yaml": {
		title:    "payments: transfers/min, higher is better; changes against postgres; average: means, and the change of the means; beside each column its server_cpu_pct, host_iowait_pct (medians of the runs)",
		chart:    "transfers/min vs threads",
		headers:  []string{"mariadb vs postgres", "postgres server_cpu_pct", "mariadb host_iowait_pct"},
		overTime: "transfers/min",
	},
	"pgbouncer-vs-direct.yaml": {
		title:    "oltp_point_select: tps (/s), higher is better; changes against direct; average: means, and the change of the means; beside each column its server_cpu_pct, host_cpu_pct (medians of the runs)",
		chart:    "tps vs threads",
		headers:  []string{"pgbouncer vs direct", "direct server_cpu_pct", "pgbouncer host_cpu_pct"},
		overTime: "tps",
	},
	"pg-versions.yaml": {
		title:    "oltp_read_write: tps (/s), higher is better; changes against pg-version=15",
		chart:    "tps vs threads",
		headers:  []string{"pg-version=15", "pg-version=18", "pg-version=18 vs pg-version=15"},
		retries:  true, // sysbench's deadlocks on one table of 1,000 rows, replayed
		overTime: "tps",
		more:     []string{"server version", "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)", "PostgreSQL 18.6", "NOPM (/min)"},
	},
	"tpce-study.yaml": {
		// relative: true, as compare.md.
		title:    "tpce: TR/s, higher is better; changes against pg-dbt5/client-dbt5; beside each column its server_cpu_pct_host (%), host_iowait_pct, disk_iops (/s), disk_iops_pct (medians of the runs); values relative to pg-dbt5/client-dbt5 at 4 threads (48.80 = 1.00x)",
		chart:    "TR/s vs threads, relative to pg-dbt5/client-dbt5 at 4 threads",
		headers:  []string{"TR/s (relative)", "server_cpu_pct_host", "host_iowait_pct", "disk_iops", "disk_iops_pct", "change"},
		retries:  true, // Trade-Results run serializable and are replayed
		overTime: "TR/s",
		more: []string{"pg-dbt5/procedure-dbt5", "maria-study/client-study", "option --mode", "option --index-set", "<td>2.19x</td>",
			"80–102% of the nominal 2.00 TR/s (1000 customers / scale factor 500)", "21.3% ± 5% relative (20.28–22.42%)"},
	},
	"read-intensive-sweep.yaml": {
		title:    "oltp_read_write_pct: qps (/s), higher is better; tuned's lead over each column in % of tuned; average: means, and the mean of the rows' changes; beside each column its server_cpu_pct, host_iowait_pct, disk_iops (/s) (medians of the runs)",
		chart:    "qps vs threads",
		headers:  []string{"tuned over default", "tuned server_cpu_pct", "tuned host_iowait_pct", "default disk_iops"},
		overTime: "qps",
	},
}

// TestStudyReports renders each study's report.html from its recorded
// result files and checks that the page reads the results as the study
// does: its metric in the headline table and chart, the percentage
// convention named, the server columns beside each target's value, and
// the retries table and chart where the workload retried (airline).
func TestStudyReports(t *testing.T) {
	plans, err := filepath.Glob("testdata/studies/*.yaml")
	if err != nil || len(plans) != len(studyPages) {
		t.Fatalf("study plans %v (%v), want the %d of studyPages", plans, err, len(studyPages))
	}
	for _, src := range plans {
		t.Run(filepath.Base(src), func(t *testing.T) {
			want, ok := studyPages[filepath.Base(src)]
			if !ok {
				t.Fatalf("no expectations for %s", src)
			}
			dir, _ := reportStudy(t, src)
			page := readFile(t, filepath.Join(dir, plan.ReportFile))
			text := html.UnescapeString(page)

			// The headline table: the first compare table of the page,
			// under its title.
			i := strings.Index(page, `<table class="compare">`)
			if i < 0 {
				t.Fatal("no compare table")
			}
			before := html.UnescapeString(page[:i])
			if !strings.Contains(before, `<p class="meta">`+want.title+`</p>`) {
				t.Errorf("the headline table's title is not\n%s\npage before the table:\n%s", want.title, before[strings.LastIndex(before, "<h2>"):])
			}
			table := html.UnescapeString(page[i : i+strings.Index(page[i:], "</table>")])
			for _, h := range want.headers {
				if !strings.Contains(table, "<th>"+h+"</th>") {
					t.Errorf("the headline table has no column %q:\n%s", h, table)
				}
			}
			// Every column beside has a figure in every row: no "-".
			if strings.Contains(table, "<td>-</td>") {
				t.Errorf("the headline table has empty cells:\n%s", table)
			}

			charts := studyCharts(t, page)
			headline := charts["w0-tps"]
			if want.overTime == "" {
				headline = charts["w0-cold"] // the timing model's
			}
			if got := chartTitle(headline); got != want.chart {
				t.Errorf("the headline chart is %q, want %q", got, want.chart)
			}
			if run, ok := charts["run1-time"]; want.overTime == "" && ok {
				t.Error("a run of tries has a chart over time")
			} else if want.overTime != "" {
				axis, _ := run["yAxis"].([]any)
				if len(axis) == 0 || axis[0].(map[string]any)["name"] != want.overTime {
					t.Errorf("run1's chart over time plots %v, want %s", axis, want.overTime)
				}
			}
			_, hasChart := charts["w0-retries"]
			hasTable := strings.Contains(page, `<table class="retries">`)
			if hasChart != want.retries || hasTable != want.retries {
				t.Errorf("retries chart %v, table %v; want %v", hasChart, hasTable, want.retries)
			}
			for _, s := range want.more {
				if !strings.Contains(text, s) {
					t.Errorf("the page lacks %q", s)
				}
			}
		})
	}
}

// studyCharts are a page's chart options by id.
func studyCharts(t *testing.T, page string) map[string]map[string]any {
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

func chartTitle(opt map[string]any) string {
	title, _ := opt["title"].(map[string]any)
	s, _ := title["text"].(string)
	return s
}
