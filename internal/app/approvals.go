package app

import (
	"context"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/store"
)

// storeApprovals keeps the approval service's "always" replies in the
// store.
type storeApprovals struct{ st *store.Store }

// AddApproval saves a.
func (s storeApprovals) AddApproval(ctx context.Context, a approval.Approval) error {
	return s.st.AddApproval(ctx, store.Approval(a))
}

// ListApprovals returns the approvals saved for a scope.
func (s storeApprovals) ListApprovals(ctx context.Context, scope, scopeID string) ([]approval.Approval, error) {
	saved, err := s.st.ListApprovals(ctx, scope, scopeID)
	if err != nil {
		return nil, err
	}
	out := make([]approval.Approval, len(saved))
	for i, a := range saved {
		out[i] = approval.Approval(a)
	}
	return out, nil
}
