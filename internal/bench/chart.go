package bench

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/s3bulk/s3bulk/internal/units"
)

// writeChart draws the report as a PNG with two panels: objects/s per
// finished method as bars, and each method's projected time against the
// object count as lines on a log scale (so a method 100x faster than another
// stays visible beside it).
func writeChart(w io.Writer, r *Report) error {
	bars, err := rateChart(r)
	if err != nil {
		return fmt.Errorf("draw chart: %w", err)
	}
	lines, err := projectionChart(r)
	if err != nil {
		return fmt.Errorf("draw chart: %w", err)
	}
	img := vgimg.NewWith(vgimg.UseWH(13*vg.Inch, 5.5*vg.Inch), vgimg.UseDPI(110))
	dc := draw.New(img)
	// A white background: the default transparent one is unreadable in
	// viewers with a dark theme.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 2, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 4}
	plots := [][]*plot.Plot{{bars, lines}}
	canvases := plot.Align(plots, tiles, dc)
	bars.Draw(canvases[0][0])
	lines.Draw(canvases[0][1])
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	return nil
}

// methodColor gives each method the same colour in both panels.
func methodColor(method string) color.Color {
	for i, m := range AllMethods {
		if m == method {
			return plotutil.Color(i)
		}
	}
	return color.Gray{Y: 0x60}
}

// chartTitle names the regime, the data set and the latency added to
// every request.
func chartTitle(r *Report) string {
	switch e := r.Environment; e.Regime {
	case RegimeSimulated:
		return fmt.Sprintf("Objects/s in a simulated S3 region (%s/request; %d x %s)", orNone(e.Latency), e.Objects, sizeOf(r))
	case RegimeLocal:
		return fmt.Sprintf("Objects/s on a local S3 server (%s added; %d x %s)", orNone(e.Latency), e.Objects, sizeOf(r))
	}
	latency := "no latency added"
	if l := r.Environment.Latency; l != "" {
		latency = l + " added per request"
	}
	return fmt.Sprintf("Objects per second (%d objects of %s, %s)", r.Environment.Objects, sizeOf(r), latency)
}

// barLabels are the bars of the rate panel: every method, in order, with
// the label above its bar: its rate, or why it has none ("skipped",
// "not run", "failed").
func barLabels(r *Report) (names []string, values []float64, labels []string) {
	for _, m := range r.Methods {
		names = append(names, m.Method)
		if m.Status != StatusOK {
			values = append(values, 0)
			labels = append(labels, string(m.Status))
			continue
		}
		values = append(values, m.ObjectsPerSecond)
		if m.ObjectsPerSecond < 10 {
			labels = append(labels, fmt.Sprintf("%.1f", m.ObjectsPerSecond))
		} else {
			labels = append(labels, fmt.Sprintf("%.0f", m.ObjectsPerSecond))
		}
	}
	return names, values, labels
}

func rateChart(r *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = chartTitle(r)
	p.Y.Label.Text = "objects/s"
	p.Y.Min = 0
	names, values, labels := barLabels(r)
	methods := names
	if len(values) == 0 {
		p.Title.Text += ": no method ran"
		return p, nil
	}
	for i, v := range values {
		// One bar chart per method so each keeps its colour.
		vals := make(plotter.Values, len(values))
		vals[i] = v
		bc, err := plotter.NewBarChart(vals, vg.Points(38))
		if err != nil {
			return nil, err
		}
		bc.Color = methodColor(methods[i])
		bc.LineStyle.Width = 0
		p.Add(bc)
	}
	xys := make(plotter.XYs, len(values))
	for i, v := range values {
		xys[i] = plotter.XY{X: float64(i), Y: v}
	}
	lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lbl.TextStyle {
		lbl.TextStyle[i].XAlign = draw.XCenter
		lbl.TextStyle[i].YAlign = draw.YBottom
	}
	lbl.Offset = vg.Point{Y: vg.Points(3)}
	p.Add(lbl)
	p.NominalX(names...)
	// Room above the tallest bar for its label.
	_, _, _, ymax := lbl.DataRange()
	p.Y.Max = max(ymax*1.12, 1)
	return p, nil
}

func sizeOf(r *Report) string {
	if r.Environment.Objects == 0 {
		return "0 B"
	}
	return units.HumanExact(r.Environment.Bytes / r.Environment.Objects)
}

func projectionChart(r *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Projected time, linear in object count (log-log)"
	p.X.Label.Text = "objects"
	p.Y.Label.Text = "time"
	// Log-log: a linear projection is a straight line and methods 100x
	// apart stay readable side by side.
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = fixedTicks{{1e3, "1k"}, {5e3, "5k"}, {1e4, "10k"}, {5e4, "50k"}, {1e5, "100k"}, {1.5e5, "150k"}, {1e6, "1M"}}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = fixedTicks{{0.1, "0.1 s"}, {1, "1 s"}, {10, "10 s"}, {60, "1 min"}, {600, "10 min"}, {3600, "1 h"}, {36000, "10 h"}, {360000, "100 h"}}
	p.Legend.Top = true
	p.Legend.Left = true
	measured := map[string]Result{}
	for _, m := range r.Methods {
		measured[m.Method] = m
	}
	drawn := 0
	for _, proj := range r.Extrapolation.Methods {
		if len(proj.Seconds) == 0 {
			continue
		}
		m := measured[proj.Method]
		xys := plotter.XYs{{X: float64(m.Objects), Y: m.Seconds}}
		for i, n := range r.Extrapolation.ObjectCounts {
			xys = append(xys, plotter.XY{X: float64(n), Y: proj.Seconds[i]})
		}
		if xys[0].X <= 0 || xys[0].Y <= 0 {
			continue // no point on a log axis
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c := methodColor(proj.Method)
		line.Color = c
		line.Width = vg.Points(2)
		points.Color = c
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(proj.Method, line, points)
		drawn++
	}
	if drawn == 0 {
		// A log axis over no data has no range; say so on a plain axis.
		p.Title.Text += ": no method finished"
		p.Y.Scale = plot.LinearScale{}
		p.Y.Tick.Marker = plot.DefaultTicks{}
		p.Y.Label.Text = "seconds"
		p.X.Scale = plot.LinearScale{}
		p.X.Tick.Marker = plot.DefaultTicks{}
	}
	return p, nil
}

// fixedTicks labels chosen values (1 min, 10 min...) and keeps those in
// range; plot.LogTicks would label only powers of ten.
type fixedTicks []struct {
	v     float64
	label string
}

func (f fixedTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range f {
		if t.v >= lo && t.v <= hi {
			ticks = append(ticks, plot.Tick{Value: t.v, Label: t.label})
		}
	}
	return ticks
}
