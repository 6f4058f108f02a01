package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/akshara-idn/akshara/registry"
)

// Transfers, authInfo and the poll queue over HTTP: the same service calls
// as EPP's <transfer>, <update> and <poll> (docs/registry.md).

// decodeBody reads a JSON object of the request body into v (unknown
// fields refused); shape describes it for the error message.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any, shape string) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return registry.Errorf(CodeTooLarge, "the request body is larger than %d bytes", s.opts.MaxBody)
		}
		return registry.Errorf(CodeBadJSON, "reading the request body: %v", err)
	}
	if !utf8.Valid(body) {
		return registry.Errorf(CodeBadUTF8, "the request body is not valid UTF-8")
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return registry.Errorf(CodeBadJSON, "the request body is not the JSON object %s: %v", shape, err)
	}
	if dec.More() {
		return registry.Errorf(CodeBadJSON, "the request body has more than one JSON value")
	}
	return nil
}

// AuthInfoRequest is the body of PUT /v1/domains/{name}/auth-info.
type AuthInfoRequest struct {
	AuthInfo string `json:"auth_info"`
}

func (s *Server) setAuthInfo(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	pw := ""
	if r.Method == http.MethodPut {
		var req AuthInfoRequest
		if err := s.decodeBody(w, r, &req, `{"auth_info": ...}`); err != nil {
			return err
		}
		if req.AuthInfo == "" {
			return registry.Errorf(registry.CodeBadName, "auth_info is required (DELETE removes it)")
		}
		pw = req.AuthInfo
	}
	_, err = s.svc.UpdateDomain(r.Context(), registrarOf(r), registry.DomainUpdate{Name: name, AuthInfo: &pw})
	s.count("auth-info", resultOf(err))
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// TransferRequest is the body of POST /v1/domains/{name}/transfer.
type TransferRequest struct {
	AuthInfo string `json:"auth_info"`
	Period   int    `json:"period"` // years; 0: none
}

func (s *Server) requestTransfer(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	var req TransferRequest
	if err := s.decodeBody(w, r, &req, `{"auth_info": ..., "period": ...}`); err != nil {
		return err
	}
	t, err := s.svc.TransferDomain(r.Context(), registrarOf(r), registry.DomainTransfer{Name: name, Op: registry.TransferRequestOp, AuthInfo: req.AuthInfo, Years: req.Period})
	s.count("transfer-request", resultOf(err))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, t)
}

func (s *Server) queryTransfer(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	// a registrar that is no party to it shows the authInfo in a header
	// (never in the URL, which is logged)
	t, err := s.svc.TransferDomain(r.Context(), registrarOf(r), registry.DomainTransfer{Name: name, Op: registry.TransferQueryOp, AuthInfo: r.Header.Get("Auth-Info")})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, t)
}

// actOnTransfer is approve, reject or cancel.
func (s *Server) actOnTransfer(w http.ResponseWriter, r *http.Request) error {
	name, err := s.pathName(r)
	if err != nil {
		return err
	}
	op := r.PathValue("op")
	switch op {
	case registry.TransferApproveOp, registry.TransferRejectOp, registry.TransferCancelOp:
	default:
		return registry.Errorf(registry.CodeNotFound, "no such operation %q: approve, reject or cancel", op)
	}
	t, err := s.svc.TransferDomain(r.Context(), registrarOf(r), registry.DomainTransfer{Name: name, Op: op})
	s.count("transfer-"+op, resultOf(err))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, t)
}

// PollResponse is the answer of GET /v1/poll and DELETE /v1/poll/{id}.
type PollResponse struct {
	Count   int                   `json:"count"`             // messages queued (after an ack: left)
	ID      int64                 `json:"id,omitempty"`      // the message acknowledged (DELETE)
	Message *registry.PollMessage `json:"message,omitempty"` // the oldest (GET); absent when none
}

func (s *Server) pollReq(w http.ResponseWriter, r *http.Request) error {
	m, n, err := s.svc.PollRequest(r.Context(), registrarOf(r))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, PollResponse{Count: n, Message: m})
}

func (s *Server) pollAck(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return registry.Errorf(registry.CodeNotFound, "there is no message %q in your queue", r.PathValue("id"))
	}
	left, err := s.svc.PollAck(r.Context(), registrarOf(r), id)
	s.count("poll-ack", resultOf(err))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, PollResponse{Count: left, ID: id})
}
