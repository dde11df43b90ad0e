package message

import (
	"context"
	"errors"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// Names of the errors an assistant message may end with.
const (
	ErrProviderAuth     = "ProviderAuthError"
	ErrUnknown          = "UnknownError"
	ErrOutputLength     = "MessageOutputLengthError"
	ErrAborted          = "MessageAbortedError"
	ErrStructuredOutput = "StructuredOutputError"
	ErrContextOverflow  = "ContextOverflowError"
	ErrContentFilter    = "ContentFilterError"
	ErrAPI              = "APIError"
)

// Error is an assistant message's failure in OpenCode's {name, data} form.
type Error struct {
	Name string    `json:"name"`
	Data ErrorData `json:"data"`
}

// ErrorData holds the fields of every error kind; each kind uses some:
// ProviderAuthError (ProviderID, Message), UnknownError (Message, Ref),
// MessageAbortedError, ContentFilterError (Message), StructuredOutputError
// (Message, Retries), ContextOverflowError (Message, ResponseBody), APIError
// (Message, StatusCode, IsRetryable, ResponseHeaders, ResponseBody,
// Metadata).
type ErrorData struct {
	Message         string            `json:"message,omitempty"`
	ProviderID      string            `json:"providerID,omitempty"`
	Ref             string            `json:"ref,omitempty"`
	StatusCode      int               `json:"statusCode,omitempty"`
	IsRetryable     *bool             `json:"isRetryable,omitempty"`
	ResponseHeaders map[string]string `json:"responseHeaders,omitempty"`
	ResponseBody    string            `json:"responseBody,omitempty"`
	Metadata        map[string]string `json:"metadata,omitempty"`
	Retries         int               `json:"retries,omitempty"`
}

// Error is the error's message, or its name when it has none.
func (e *Error) Error() string {
	if e.Data.Message != "" {
		return e.Data.Message
	}
	switch e.Name {
	case ErrOutputLength:
		return "the model's output reached its length limit"
	case ErrAborted:
		return "aborted"
	}
	return e.Name
}

// Is reports whether e is an error of the same kind as target.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Name == e.Name && t.Data.Message == ""
}

// NewError returns an error of kind name with message msg.
func NewError(name, msg string) *Error {
	return &Error{Name: name, Data: ErrorData{Message: msg}}
}

// Aborted is the error of a message the user interrupted.
func Aborted() *Error { return NewError(ErrAborted, "The operation was aborted.") }

// IsAborted reports whether e is a MessageAbortedError.
func IsAborted(e *Error) bool { return e != nil && e.Name == ErrAborted }

// FromError converts a failure of a model request into an assistant error.
func FromError(err error) *Error {
	if err == nil {
		return nil
	}
	var me *Error
	if errors.As(err, &me) {
		return me
	}
	if errors.Is(err, context.Canceled) {
		return Aborted()
	}
	var le *llm.Error
	if !errors.As(err, &le) {
		return NewError(ErrUnknown, err.Error())
	}
	switch le.Kind {
	case llm.ErrCanceled:
		return Aborted()
	case llm.ErrAuth:
		return &Error{Name: ErrProviderAuth, Data: ErrorData{ProviderID: le.Provider, Message: le.Message}}
	case llm.ErrContextOverflow:
		return &Error{Name: ErrContextOverflow, Data: ErrorData{Message: le.Message, ResponseBody: le.Body}}
	case llm.ErrContentFilter:
		return NewError(ErrContentFilter, le.Message)
	}
	if le.StatusCode != 0 || le.Kind == llm.ErrRetryable {
		retryable := le.Retryable()
		msg := le.Message
		if strings.Contains(msg, "Overloaded") {
			msg = "Provider is overloaded"
		}
		return &Error{Name: ErrAPI, Data: ErrorData{
			Message: msg, StatusCode: le.StatusCode, IsRetryable: &retryable,
			ResponseHeaders: le.Headers, ResponseBody: le.Body,
		}}
	}
	return NewError(ErrUnknown, le.Error())
}
