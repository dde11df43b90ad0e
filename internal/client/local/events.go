package local

import (
	"context"
	"errors"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/tool"
)

// eventBuffer is how many undelivered events a subscription holds. Text
// deltas beyond it are dropped (and reported); structural events make the
// engine wait, up to the bus's bound.
const eventBuffer = 4096

// events reads a bus subscription and converts its events as they are
// read, so it runs no goroutine of its own.
type events struct {
	sub    *bus.Subscription
	filter client.EventFilter
}

// Subscribe returns the events f selects.
func (c *Client) Subscribe(ctx context.Context, f client.EventFilter) (client.Events, error) {
	if err := c.alive(); err != nil {
		return nil, err
	}
	e := &events{sub: c.app.Bus.Subscribe(bus.Filter{SessionID: f.SessionID, Types: f.Types}, eventBuffer), filter: f}
	c.track(e)
	return e, nil
}

// Next returns the next event that converts, or how many were dropped.
func (e *events) Next(ctx context.Context) (client.Event, error) {
	for {
		ev, dropped, err := e.sub.Next(ctx)
		switch {
		case errors.Is(err, bus.ErrClosed):
			return nil, client.ErrClosed
		case err != nil:
			return nil, err
		case dropped > 0:
			return client.EventsDroppedEvent{Count: dropped}, nil
		}
		if out := convertEvent(ev); out != nil && e.filter.Match(out) {
			return out, nil
		}
	}
}

// Close ends the subscription.
func (e *events) Close() error {
	e.sub.Close()
	return nil
}

// convertEvent turns a bus event into the client's, or nil for events the
// client does not carry.
func convertEvent(ev bus.Event) client.Event {
	switch p := ev.Properties.(type) {
	case session.SessionEvent:
		s := toSession(p.Info)
		switch ev.Type {
		case bus.SessionCreated:
			return client.SessionCreatedEvent{Info: s}
		case bus.SessionUpdated:
			return client.SessionUpdatedEvent{Info: s}
		case bus.SessionDeleted:
			return client.SessionDeletedEvent{Info: s}
		}
	case session.MessageEvent:
		return client.MessageUpdatedEvent{Info: toInfo(p.Info)}
	case session.PartEvent:
		return client.PartUpdatedEvent{Part: toPart(p.Part)}
	case session.DeltaEvent:
		return client.PartDeltaEvent{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.PartID, Field: p.Field, Delta: p.Delta}
	case session.StatusEvent:
		return client.SessionStatusEvent{SessionID: p.SessionID, Status: toStatus(p.Status)}
	case session.ErrorEvent:
		return client.SessionErrorEvent{SessionID: p.SessionID, Error: toError(p.Error)}
	case session.CompactedEvent:
		return client.SessionCompactedEvent{SessionID: p.SessionID}
	case session.IdleEvent:
		return client.SessionIdleEvent{SessionID: p.SessionID}
	case session.TurnEndedEvent:
		return client.TurnEndedEvent{SessionID: p.SessionID, Reason: string(p.Reason), Error: toError(p.Error), Detail: p.Detail}
	case session.MessageRemovedEvent:
		return client.MessageRemovedEvent{SessionID: p.SessionID, MessageID: p.MessageID}
	case session.PartRemovedEvent:
		return client.PartRemovedEvent{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.PartID}
	case permission.Request:
		return client.PermissionAskedEvent{PermissionRequest: toPermission(p)}
	case permission.Replied:
		return client.PermissionRepliedEvent{SessionID: p.SessionID, RequestID: p.RequestID, Reply: string(p.Reply)}
	case tool.QuestionRequest:
		return client.QuestionAskedEvent{QuestionRequest: toQuestion(p)}
	case tool.QuestionReply:
		return client.QuestionRepliedEvent{SessionID: p.SessionID, RequestID: p.RequestID, Answers: p.Answers}
	case tool.QuestionRejection:
		return client.QuestionRejectedEvent{SessionID: p.SessionID, RequestID: p.RequestID}
	case tool.TodoUpdated:
		return client.TodoUpdatedEvent{SessionID: p.SessionID, Todos: toTodos(p.Todos)}
	case hook.Notice:
		return client.HookNoticeEvent{SessionID: p.SessionID, Event: p.Event, Command: p.Command, Origin: p.Origin, Error: p.Error, Text: p.Text}
	}
	return nil
}
