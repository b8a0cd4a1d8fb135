package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/validate/content"
)

// A node name is kept exactly when Kubernetes would take it for a node's
// name (apimachinery's DNS subdomain rule), blanks around it trimmed.
func TestNodeNameIsKubernetesRule(t *testing.T) {
	long := strings.Repeat("a", 64) // a dotted part over 63: a subdomain takes it
	for _, s := range []string{
		"ip-10-0-1-23.ec2.internal", "gke-c-pool-a-1b2c3d4e-x9z8", "node-a", " node-a\n", long + ".example.com",
		strings.Repeat("a", 253), strings.Repeat("a", 254), "", "-a", "a-", "a..b", ".a", "a.", "Node", "a_b",
		"a b", "node/a", "a\xff", "<b>",
	} {
		want := ""
		if len(content.IsDNS1123Subdomain(strings.TrimSpace(s))) == 0 {
			want = strings.TrimSpace(s)
		}
		assert.Equal(t, want, NodeName(s), "%q", s)
	}
	assert.Equal(t, long+".example.com", NodeName(long+".example.com"))
	assert.Empty(t, NodeName("-a"))
	assert.Empty(t, NodeName("a..b"))
}
