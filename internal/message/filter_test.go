package message

import (
	"strings"
	"testing"
)

func ids(ms []Message) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Info.ID)
	}
	return strings.Join(s, " ")
}

func summary(id, parent string, finish string, err *Error) Message {
	m := assistant(id, text("summary"))
	m.Info.ParentID = parent
	m.Info.Summary = true
	m.Info.Finish = finish
	m.Info.Error = err
	return m
}

func TestFilterCompacted(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{
			name: "no compaction",
			msgs: []Message{user("m1"), assistant("m2"), user("m3"), assistant("m4")},
			want: "m1 m2 m3 m4",
		},
		{
			name: "completed compaction hides what came before",
			msgs: []Message{user("m1"), assistant("m2"), user("m3", &CompactionPart{Auto: true}),
				summary("m4", "m3", "stop", nil), user("m5"), assistant("m6")},
			want: "m3 m4 m5 m6",
		},
		{
			name: "retained tail goes after the summary",
			msgs: []Message{user("m1"), assistant("m2"), user("m3"), assistant("m4"),
				user("m5", &CompactionPart{Auto: true, TailStartID: "m3"}), summary("m6", "m5", "stop", nil), user("m7")},
			want: "m5 m6 m3 m4 m7",
		},
		{
			name: "unfinished summary does not hide anything",
			msgs: []Message{user("m1"), user("m2", &CompactionPart{}), summary("m3", "m2", "", nil)},
			want: "m1 m2 m3",
		},
		{
			name: "failed summary does not hide anything",
			msgs: []Message{user("m1"), user("m2", &CompactionPart{}), summary("m3", "m2", "stop", Aborted())},
			want: "m1 m2 m3",
		},
		{
			name: "newest of two compactions wins",
			msgs: []Message{user("m1"), user("m2", &CompactionPart{}), summary("m3", "m2", "stop", nil), user("m4"),
				user("m5", &CompactionPart{}), summary("m6", "m5", "stop", nil), user("m7")},
			want: "m5 m6 m7",
		},
		{
			name: "a summary whose user message has no compaction part is ignored",
			msgs: []Message{user("m1"), user("m2"), summary("m3", "m2", "stop", nil)},
			want: "m1 m2 m3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(FilterCompacted(tt.msgs)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFindLatest(t *testing.T) {
	unfinished := assistant("m6")
	unfinished.Info.Finish = ""
	sub := &SubtaskPart{Agent: "explore"}
	comp := &CompactionPart{}
	msgs := []Message{
		user("m3", &CompactionPart{}), summary("m4", "m3", "stop", nil), user("m1"), assistant("m2"),
		user("m5", sub), unfinished, user("m7", comp),
	}
	l := FindLatest(msgs)
	if l.User.Info.ID != "m7" || l.Assistant.Info.ID != "m6" || l.Finished.Info.ID != "m4" {
		t.Fatalf("latest user %s assistant %s finished %s, want m7 m6 m4", l.User.Info.ID, l.Assistant.Info.ID, l.Finished.Info.ID)
	}
	if len(l.Tasks) != 2 || l.Tasks[0] != sub || l.Tasks[1] != comp {
		t.Fatalf("tasks %v, want the subtask then the compaction", l.Tasks)
	}
	if l := FindLatest(nil); l.User != nil || l.Assistant != nil || l.Finished != nil || l.Tasks != nil {
		t.Fatalf("empty history: %+v", l)
	}
}
