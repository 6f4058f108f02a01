package registry

import (
	"slices"
	"testing"
)

// TestOrderLanguages: a stored zone takes the zones file's languages, in
// the file's order, when its own are among them (a database created before
// languages were added gains them); otherwise it keeps its own.
func TestOrderLanguages(t *testing.T) {
	defaults := []Zone{{Name: "in", Languages: []string{"hi", "mr", "ur", "sat"}}}
	tests := []struct {
		name   string
		stored []string
		want   []string
	}{
		{"same set, other order", []string{"mr", "hi", "sat", "ur"}, []string{"hi", "mr", "ur", "sat"}},
		{"created before ur and sat", []string{"mr", "hi"}, []string{"hi", "mr", "ur", "sat"}},
		{"a language the file lacks", []string{"hi", "xx"}, []string{"hi", "xx"}},
		{"more than the file", []string{"hi", "mr", "ur", "sat", "xx"}, []string{"hi", "mr", "ur", "sat", "xx"}},
	}
	for _, tt := range tests {
		z := Zone{Name: "in", Languages: append([]string(nil), tt.stored...)}
		orderLanguages(&z, defaults)
		if !slices.Equal(z.Languages, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, z.Languages, tt.want)
		}
		other := Zone{Name: "भारत", Languages: append([]string(nil), tt.stored...)}
		if orderLanguages(&other, defaults); !slices.Equal(other.Languages, tt.stored) {
			t.Errorf("%s: another zone changed to %q", tt.name, other.Languages)
		}
	}
}
