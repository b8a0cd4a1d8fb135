// Package plot draws the charts of a sweep with gonum/plot: mean iteration
// duration with its p10–p90 band, normalised cost, and throttled fraction,
// each against the swept CPU share, one line per other swept setting.
//
// Every chart is gonum/plot's plot.Plot built from its plotters, in the
// Liberation font; render.go writes .svg or .png through internal/atomicfile.
// It draws the sweep charts, sample's usage over time, latency's p99/p50
// lines, the trace timeline, simulate's heat maps and size's search (every
// window against the quota, with the target and the bracket).
package plot
