//go:build cgo && libidn2

package main

/*
#cgo LDFLAGS: -lidn2
#include <idn2.h>
#include <stdlib.h>
#include <string.h>

// register_all runs idn2_register_u8 over n NUL-separated labels in buf
// and returns how many it accepts: the loop is in C so that what is
// measured is libidn2, not the crossing from Go.
static int register_all(const char *buf, int n) {
	int ok = 0;
	for (int i = 0; i < n; i++) {
		uint8_t *out = NULL;
		if (idn2_register_u8((const uint8_t *)buf, NULL, &out, 0) == IDN2_OK) {
			ok++;
			idn2_free(out);
		}
		buf += strlen(buf) + 1;
	}
	return ok;
}
*/
import "C"

import (
	"strings"
	"unsafe"
)

func init() {
	buildTags = "-tags libidn2 "
	extraPeers = append(extraPeers, func(mix, valid []string) (peer, bool) {
		bufs := map[int]*C.char{} // C copies of label lists, by first label's address and length
		return peer{
			name: "libidn2 idn2_register_u8 (cgo)",
			note: "IDNA2008 only, no language policy; the loop runs in C",
			run: func(ls []string) int {
				key := len(ls)
				cbuf, ok := bufs[key]
				if !ok {
					cbuf = C.CString(strings.Join(ls, "\x00") + "\x00")
					bufs[key] = cbuf
				}
				return int(C.register_all((*C.char)(unsafe.Pointer(cbuf)), C.int(len(ls))))
			},
		}, true
	})
}
