package kube

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The rules Kubernetes applies to names, label keys and values and
// resource quantities (k8s.io/apimachinery's validation, restated here so
// that the binary does not link it): what emit accepts is what the API
// server accepts.

var (
	dnsLabelRE  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	labelNameRE = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
	quantityRE  = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$`)
)

// NodeName says what is wrong with a node name ("" when nothing): a DNS
// subdomain, lower-case letters, digits, '-' and '.', at most 253
// characters, each dot-separated part a DNS label.
func NodeName(s string) string {
	if s == "" || len(s) > 253 {
		return "a node name is 1 to 253 characters"
	}
	for _, part := range strings.Split(s, ".") {
		if !dnsLabelRE.MatchString(part) || len(part) > 63 {
			return "a node name is lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit"
		}
	}
	return ""
}

// LabelKey says what is wrong with a label key ("" when nothing): an
// optional DNS subdomain prefix and '/', then a name of at most 63
// characters.
func LabelKey(k string) string {
	name := k
	if prefix, rest, ok := strings.Cut(k, "/"); ok {
		if NodeName(prefix) != "" {
			return "a label key's prefix is a DNS subdomain, such as example.com"
		}
		name = rest
	}
	if len(name) > 63 || !labelNameRE.MatchString(name) {
		return "a label key is at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, after an optional prefix/"
	}
	return ""
}

// LabelValue says what is wrong with a label value ("" when nothing).
func LabelValue(v string) string {
	if v != "" && (len(v) > 63 || !labelNameRE.MatchString(v)) {
		return "a label value is at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
	}
	return ""
}

// labelValue makes a value of a swept parameter fit a label: µs becomes
// us, any other character a label cannot hold becomes '_', and the ends
// are trimmed to letters or digits. Labels are for selecting and reading;
// the run's own arguments carry the exact value.
func labelValue(s string) string {
	s = strings.ReplaceAll(s, "µ", "u")
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	s = string(b)
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}

// SweepID says what is wrong with a sweep id ("" when nothing): it names
// the Jobs (tb-<id>-c<i>-n<j>, at most 63 characters), so it is a DNS
// label of at most 40 characters.
func SweepID(s string) string {
	if len(s) > 40 || !dnsLabelRE.MatchString(s) {
		return "a sweep id is 1 to 40 lower-case letters, digits and '-', starting and ending with a letter or digit"
	}
	return ""
}

// Bytes reads a memory quantity as Kubernetes writes one (256Mi, 1Gi,
// 500M, 1.5Gi) in bytes.
func Bytes(q string) (int64, error) {
	m := quantityRE.FindStringSubmatch(q)
	if m == nil {
		return 0, fmt.Errorf("%q is not a quantity such as 256Mi or 1Gi", q)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, err
	}
	mult := map[string]float64{"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
		"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}[m[3]]
	b := f * mult
	if b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is too large", q)
	}
	return int64(math.Ceil(b)), nil
}

// Millicores reads a CPU count (0.25) as whole millicores (250), the unit
// of a pod's CPU limit; ok is false when it is not a whole number of them.
func Millicores(cpus float64) (m int64, ok bool) {
	f := cpus * 1000
	r := math.Round(f)
	return int64(r), math.Abs(f-r) < 1e-6 && r >= 1
}

// CPUQuantity writes millicores as a quantity: "250m", or "2" for whole
// CPUs.
func CPUQuantity(m int64) string {
	if m%1000 == 0 {
		return strconv.FormatInt(m/1000, 10)
	}
	return strconv.FormatInt(m, 10) + "m"
}
