// Package plural words counts for people: "1 CPU", "2 CPUs", "1 job",
// "0 jobs". Every line throttlebench prints with a count goes through it,
// so that none says "1 configurations" or "1 workers" (issue 28).
//
// It may not know what it counts. N counts whole things, F fractional
// ones (CPUs), Noun picks the word.
package plural
