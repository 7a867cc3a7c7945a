package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/s3bulk/s3bulk/internal/units"
)

// WriteJSON writes the report as one indented JSON document.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}

// WriteTable writes the terminal table so that it reads on its own: what
// was copied, where and with what latency added; one line per method; what
// each method is; the reasons of the methods that did not finish; what a
// local server's results depend on; then the huge-object table.
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintln(w, intro(r))
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tstatus\tobjects\tMiB\tseconds\tobjects/s\tMiB/s\tCPU s\trequests\tcost $\tspeed-up\t")
	for _, m := range r.Methods {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			m.Method, m.Status, count(m), mib(m), num(m, m.Seconds, 1), num(m, m.ObjectsPerSecond, 2),
			num(m, m.MiBPerSecond, 2), num(m, m.ClientCPUSeconds, 1), requests(m), cost(m), speedup(m))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	fmt.Fprintln(w, "\nMethods:")
	for _, m := range r.Methods {
		fmt.Fprintf(w, "  %s: %s\n", m.Method, m.Description)
	}
	var notes []string
	for _, m := range r.Methods {
		if m.Reason != "" {
			notes = append(notes, fmt.Sprintf("  %s: %s", m.Method, m.Reason))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nNotes:\n%s\n", strings.Join(notes, "\n"))
	}
	if r.Baseline != "" {
		fmt.Fprintf(w, "\nSpeed-up is objects/s against %s. Requests marked ~ are estimated from objects and listing pages.\n", r.Baseline)
	}
	if len(r.Calibration) > 0 {
		fmt.Fprintln(w, "\nCalibration: the report's own methods in the simulated region, next to the report's figures:")
		for _, c := range r.Calibration {
			fmt.Fprintln(w, "  "+c.Line())
		}
	}
	if why := regimeWhy(r.Environment); why != "" {
		fmt.Fprintf(w, "\n%s\n", why)
	} else if r.Environment.Local() {
		fmt.Fprintf(w, "The S3 server runs on this machine and shares its %d CPUs with the clients: figures move with the machine's load, so compare methods within one run.\n", r.Environment.CPUs)
	}
	if h := r.Huge; h != nil {
		fmt.Fprintf(w, "\nOne %s object copied server-side in parts, %d parts at a time%s:\n", units.HumanExact(h.Size), h.Concurrency, bestOf(h.Repeat))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "part size\tstatus\tparts\tseconds\tMiB/s\t")
		for _, row := range h.Rows {
			secs, rate := "-", "-"
			if row.Status == StatusOK {
				secs, rate = fmt.Sprintf("%.2f", row.Seconds), fmt.Sprintf("%.1f", row.MiBPerSecond)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t\n", row.Label, row.Status, row.Parts, secs, rate)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("write table: %w", err)
		}
		for _, row := range h.Rows {
			if row.Reason != "" {
				fmt.Fprintf(w, "  %s: %s\n", row.Label, row.Reason)
			}
		}
		if h.AutoVsBest != nil {
			fmt.Fprintf(w, "Automatic part size: %.0f%% of the best fixed part size's time (%s).\n", *h.AutoVsBest*100, units.HumanExact(h.BestPartSize))
		}
	}
	return nil
}

// intro says in one paragraph what the table measures: report 1's
// benchmark, the data set, the endpoint and the latency added.
func intro(r *Report) string {
	e := r.Environment
	where := "AWS"
	if e.Endpoint != "" {
		where = e.Endpoint
		if e.Local() {
			where = "a local S3 server (" + e.Endpoint + ")"
		}
	}
	latency := "no latency added"
	if e.Latency != "" {
		latency = e.Latency + " added to every request"
	}
	switch e.Regime {
	case RegimeSimulated:
		where, latency = "a simulated S3 region ("+e.Endpoint+")", orNone(e.Latency)+" per request, S3's capacity"
	case RegimeLocal:
		where = "a local S3 server on this machine (" + e.Endpoint + ")"
	}
	return fmt.Sprintf("Field report 1's benchmark: copy %d objects of %s (%s) from one bucket to another,\n"+
		"each method in turn, on %s, %s.\n"+
		"(Report 1 compared four ways to copy per-user files between two buckets in ap-northeast-1;\n"+
		"its SDK program is copy-per-company. Its own figures are in docs/benchmarks.md.)",
		e.Objects, sizeOf(r), units.HumanExact(e.Bytes), where, latency)
}

// Local reports whether the endpoint is on this machine, sharing its CPUs
// with the clients measured.
func (e Environment) Local() bool {
	u, err := url.Parse(e.Endpoint)
	if err != nil || e.Endpoint == "" {
		return false
	}
	switch h := u.Hostname(); h {
	case "localhost":
		return true
	default:
		ip := net.ParseIP(h)
		return ip != nil && ip.IsLoopback()
	}
}

func finished(m Result) bool { return m.Status == StatusOK }

func count(m Result) string {
	if !finished(m) && m.Objects == 0 {
		return "-"
	}
	return fmt.Sprint(m.Objects)
}

func mib(m Result) string {
	if !finished(m) && m.Bytes == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(m.Bytes)/(1<<20))
}

func num(m Result, v float64, prec int) string {
	if !finished(m) && v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func requests(m Result) string {
	if len(m.Requests) == 0 {
		return "-"
	}
	if m.RequestsEstimated {
		return fmt.Sprintf("~%d", m.TotalRequests())
	}
	return fmt.Sprint(m.TotalRequests())
}

func cost(m Result) string {
	if m.EstimatedCostUSD == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", m.EstimatedCostUSD)
}

func speedup(m Result) string {
	if m.SpeedupVsBaseline == nil {
		return "-"
	}
	return fmt.Sprintf("%.1fx", *m.SpeedupVsBaseline)
}

// reportFigures is report 1's own table, printed next to ours so readers can
// compare environments.
var reportFigures = []struct {
	method, desc    string
	seconds, rate   float64
	mibPerSec, cost float64
}{
	{MethodPut, "PutObject upload (baseline)", 441.0, 11.34, 1.11, 0.0235},
	{MethodCopyPerCompany, "CopyObject, SDK, per company", 166.7, 29.99, 2.93, 0.0235},
	{MethodAWS, "`aws s3 cp --recursive`, per company", 19.9, 251.43, 24.55, 0.0235},
	{MethodBatchOps, "S3 Batch Operations (active time)", 15, 333.33, 32.55, 0.2785},
	{MethodBatchOps, "S3 Batch Operations (wall clock)", 63.3, 79.02, 7.72, 0.2785},
}

// writeMarkdown writes a self-contained Markdown report. chart, when not
// empty, is the chart file's name relative to the report.
func writeMarkdown(w io.Writer, r *Report, chart string) error {
	var b strings.Builder
	mdIntro(&b, r, chart)
	mdResults(&b, r)
	mdCalibration(&b, r)
	mdMethods(&b, r)
	mdProjection(&b, r)
	mdHuge(&b, r)
	mdFieldReport(&b, r)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	return nil
}

// mdIntro is the report's title, where and how it ran, and its chart.
func mdIntro(b *strings.Builder, r *Report, chart string) {
	e := r.Environment
	endpoint := e.Endpoint
	if endpoint == "" {
		endpoint = "AWS"
	}
	if e.Regime != "" {
		fmt.Fprintf(b, "# s3bulk bench %s: %d objects, %s\n\n", e.RegimeTitle(), e.Objects, units.HumanExact(e.Bytes))
	} else {
		fmt.Fprintf(b, "# s3bulk bench: %d objects, %s\n\n", e.Objects, units.HumanExact(e.Bytes))
	}
	fmt.Fprintf(b, "Copied from `%s` to `%s` on %s (region %s", e.Source, e.Dest, endpoint, e.Region)
	if e.Latency != "" {
		fmt.Fprintf(b, ", %s added to every request", e.Latency)
	}
	fmt.Fprintf(b, "), %s, %s on %s/%s with %d CPUs. Per-company methods ran %d companies at a time, one object at a time inside each.\n\n",
		e.Started.UTC().Format(time.DateTime+" MST"), e.GoVersion, e.OS, e.Arch, e.CPUs, e.CompanyConcurrency)
	if why := regimeWhy(e); why != "" {
		fmt.Fprintf(b, "%s\n\n", strings.ReplaceAll(why, "\n", " "))
	} else if e.Local() {
		fmt.Fprintf(b, "The S3 server ran on this machine, sharing its %d CPUs with the clients: figures move with the machine's load, so compare methods within one run.\n\n", e.CPUs)
	}
	if chart != "" {
		fmt.Fprintf(b, "![objects per second and projected time](%s)\n\n", chart)
	}
}

// mdResults is the table of the methods' figures.
func mdResults(b *strings.Builder, r *Report) {
	b.WriteString("| method | status | objects | MiB | seconds | objects/s | MiB/s | client CPU s | requests | est. cost $ | speed-up |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|---|--:|--:|\n")
	for _, m := range r.Methods {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			m.Method, m.Status, count(m), mib(m), num(m, m.Seconds, 1), num(m, m.ObjectsPerSecond, 2),
			num(m, m.MiBPerSecond, 2), num(m, m.ClientCPUSeconds, 1), requestDetail(m), cost(m), speedup(m))
	}
	b.WriteString("\n")
	if r.Baseline != "" {
		fmt.Fprintf(b, "Speed-up is objects/s against `%s`. Requests marked ~ are estimated from objects and listing pages, not counted. Costs use %s prices.\n\n", r.Baseline, r.Environment.PriceRegion)
	}
}

// mdCalibration compares the report's own methods with its figures.
func mdCalibration(b *strings.Builder, r *Report) {
	if len(r.Calibration) > 0 {
		b.WriteString("## Calibration\n\nThe report's own methods in the simulated region, next to the report's figures: the simulation must reproduce them.\n\n")
		b.WriteString("| method | objects/s | the report's | difference | tolerance |\n|---|--:|--:|--:|---|\n")
		for _, c := range r.Calibration {
			verdict := "within"
			if !c.Within {
				verdict = "outside"
			}
			name := c.Method
			if c.Alone != nil {
				name += " (one process alone, on the report's schedule)"
			}
			fmt.Fprintf(b, "| %s | %.1f | %.2f | %+.0f%% | %s ±%.0f%% |\n", name, c.Compared(), c.ReportObjectsPerSecond,
				(c.Compared()/c.ReportObjectsPerSecond-1)*100, verdict, c.Tolerance*100)
		}
		for _, c := range r.Calibration {
			if n := c.ClientNote(); n != "" {
				fmt.Fprintf(b, "\n%s: %s.\n", c.Method, n)
			}
			if c.Alone != nil {
				fmt.Fprintf(b, "\n%s: %s.\n", c.Method, c.Line())
			}
		}
		b.WriteString("\n")
	}
}

// mdMethods says what each method is, and why one did not run.
func mdMethods(b *strings.Builder, r *Report) {
	b.WriteString("## Methods\n\n")
	for _, m := range r.Methods {
		fmt.Fprintf(b, "- **%s**: %s", m.Method, m.Description)
		switch {
		case m.Reason == "":
		case m.Status == StatusOK:
			fmt.Fprintf(b, " _(%s)_", m.Reason)
		default:
			fmt.Fprintf(b, " _%s: %s_", m.Status, m.Reason)
		}
		b.WriteString("\n")
	}
}

// mdProjection is each method's time and cost at larger counts.
func mdProjection(b *strings.Builder, r *Report) {
	b.WriteString("\n## Projection\n\n")
	fmt.Fprintf(b, "%s, as the report projected.\n\n", capitalize(r.Extrapolation.Model))
	b.WriteString("| method |")
	for _, n := range r.Extrapolation.ObjectCounts {
		fmt.Fprintf(b, " %d objects |", n)
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|", len(r.Extrapolation.ObjectCounts)) + "\n")
	for _, p := range r.Extrapolation.Methods {
		fmt.Fprintf(b, "| %s |", p.Method)
		for i := range r.Extrapolation.ObjectCounts {
			t := "not run"
			if i < len(p.Seconds) {
				t = formatDuration(p.Seconds[i])
			}
			fmt.Fprintf(b, " %s, $%.2f |", t, p.EstimatedCostUSD[i])
		}
		b.WriteString("\n")
	}
}

// mdHuge is the one huge object copied in parts, by part size.
func mdHuge(b *strings.Builder, r *Report) {
	if h := r.Huge; h != nil {
		fmt.Fprintf(b, "\n## One %s object, server-side copy in parts\n\n", units.HumanExact(h.Size))
		fmt.Fprintf(b, "UploadPartCopy, %d parts at a time%s, as report 3 varied its part size. The automatic row uses the engine's part size for server-side copies.\n\n", h.Concurrency, bestOf(h.Repeat))
		b.WriteString("| part size | status | parts | seconds | MiB/s |\n|---|---|--:|--:|--:|\n")
		for _, row := range h.Rows {
			secs, rate := "-", "-"
			if row.Status == StatusOK {
				secs, rate = fmt.Sprintf("%.2f", row.Seconds), fmt.Sprintf("%.1f", row.MiBPerSecond)
			}
			status := string(row.Status)
			if row.Reason != "" {
				status += ": " + row.Reason
			}
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", row.Label, status, row.Parts, secs, rate)
		}
		if h.AutoVsBest != nil {
			fmt.Fprintf(b, "\nThe automatic part size took %.0f%% of the best fixed size's time (%s).\n", *h.AutoVsBest*100, units.HumanExact(h.BestPartSize))
		}
	}
}

// mdFieldReport is the field report's figures, for comparison.
func mdFieldReport(b *strings.Builder, r *Report) {
	b.WriteString("\n## The field report, for comparison\n\n")
	b.WriteString("5,000 objects of 100 KiB in ap-northeast-1 from a 4-core client (its SDK program's time implies 119 ms per CopyObject).\n\n")
	b.WriteString("| method | seconds | objects/s | MiB/s | est. cost $ |\n|---|--:|--:|--:|--:|\n")
	for _, f := range reportFigures {
		fmt.Fprintf(b, "| %s | %.1f | %.2f | %.2f | %.4f |\n", f.desc, f.seconds, f.rate, f.mibPerSec, f.cost)
	}
}

func bestOf(repeat int) string {
	if repeat > 1 {
		return fmt.Sprintf(", best of %d", repeat)
	}
	return ""
}

func requestDetail(m Result) string {
	if len(m.Requests) == 0 {
		return "-"
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(m.Requests)) {
		parts = append(parts, fmt.Sprintf("%s %d", op, m.Requests[op]))
	}
	s := strings.Join(parts, ", ")
	if m.RequestsEstimated {
		s = "~ " + s
	}
	return s
}

func formatDuration(seconds float64) string {
	if seconds < 120 {
		return fmt.Sprintf("%.1f s", seconds)
	}
	if seconds < 7200 {
		return fmt.Sprintf("%.1f min", seconds/60)
	}
	return fmt.Sprintf("%.1f h", seconds/3600)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
