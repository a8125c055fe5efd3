package lsptest

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// ResponseError is a JSON-RPC error the server answered a request with.
type ResponseError struct {
	// Method is the method of the request.
	Method string
	// Code is the JSON-RPC error code (jsonrpc2.MethodNotFound, protocol.CodeRequestCancelled, ...).
	Code jsonrpc2.Code
	// Message is the error message.
	Message string
	// Data is the error's data, when the server sent some.
	Data json.RawMessage
}

// Error implements error.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s: JSON-RPC error %d: %s", e.Method, e.Code, e.Message)
}

// ErrorCode returns the JSON-RPC code of err when it is (or wraps) a *ResponseError.
func ErrorCode(err error) (jsonrpc2.Code, bool) {
	var re *ResponseError
	if errors.As(err, &re) {
		return re.Code, true
	}
	return 0, false
}

var (
	// ErrClosed says the connection ended (Close, the server closed its end, or the context given to
	// Connect ended) before the operation could complete.
	ErrClosed = errors.New("lsptest: connection closed")
	// ErrNotWanted says the server's textDocumentSync does not ask for the notification, so an editor
	// would not have sent it: nothing was sent, but the editor's buffer was updated.
	ErrNotWanted = errors.New("lsptest: the server's textDocumentSync does not ask for this notification")
)

// toResponseError turns the error jsonrpc2 returns for an error answer into a *ResponseError.
func toResponseError(method string, err error) error {
	var je *jsonrpc2.Error
	if !errors.As(err, &je) {
		return err
	}
	re := &ResponseError{Method: method, Code: je.Code, Message: je.Message}
	if je.Data != nil {
		re.Data = append(json.RawMessage(nil), *je.Data...)
	}
	return re
}

// toWireError turns an error a hook or handler returned into the JSON-RPC error the editor answers
// with: a *jsonrpc2.Error or *ResponseError keeps its code, anything else becomes -32603.
func toWireError(err error) *jsonrpc2.Error {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return je
	}
	var re *ResponseError
	if errors.As(err, &re) {
		out := jsonrpc2.NewError(re.Code, re.Message)
		if re.Data != nil {
			d := re.Data
			out.Data = &d
		}
		return out
	}
	return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
}
