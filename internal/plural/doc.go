// Package plural words counts for people: "1 CPU", "2 CPUs", "1 job",
// "0 jobs", so that no line says "1 configurations" or "1 workers"
// (issue 28). The rule is that a count in a line for people goes through
// it rather than a plural made by hand ("slice(s)"). One line keeps its
// hand-made plural: compare's "N configuration(s) only in old", which the
// compare goldens record word for word.
//
// It may not know what it counts. N counts whole things, F fractional
// ones (CPUs), Noun picks the word.
package plural
