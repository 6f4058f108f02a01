package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/akshara-idn/akshara/httpapi"
)

// TestAnalyzeParams: analyze without a zone (as when a whole name is given
// in name=, the check endpoint's parameter) says which parameters it takes
// instead of "there is no zone """.
func TestAnalyzeParams(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for _, tc := range []struct {
		query  string
		status int
		code   string
	}{
		{"name=" + url.QueryEscape("किताब.भारत"), http.StatusBadRequest, httpapi.CodeBadParam},
		{"label=" + url.QueryEscape("किताब"), http.StatusBadRequest, httpapi.CodeBadParam},
		{"label=" + url.QueryEscape("किताब") + "&zone=nowhere", http.StatusBadRequest, "UNKNOWN_ZONE"},
		{"label=" + url.QueryEscape("किताब") + "&zone=" + url.QueryEscape("भारत"), http.StatusOK, ""},
	} {
		var body httpapi.ErrorBody
		resp := e.do("GET", "/v1/analyze?"+tc.query, "", "", &body)
		if resp.StatusCode != tc.status || body.Code != tc.code {
			t.Errorf("analyze?%s: %d %q, want %d %q", tc.query, resp.StatusCode, body.Code, tc.status, tc.code)
		}
		if tc.code == httpapi.CodeBadParam && !strings.Contains(body.Message, "label") {
			t.Errorf("analyze?%s: message %q does not name the parameters", tc.query, body.Message)
		}
	}
}
