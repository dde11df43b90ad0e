package message

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestDecodeShares checks that messages and parts decoded with one Strings
// hold their repeated values once, and decode to what decoding without it
// gives.
func TestDecodeShares(t *testing.T) {
	infos := [][]byte{
		[]byte(`{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1},"agent":"build","model":{"providerID":"fake","modelID":"model"}}`),
		[]byte(`{"id":"msg_2","sessionID":"ses_1","role":"assistant","time":{"created":2},"parentID":"msg_1","modelID":"model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/r","root":"/r"},"cost":0,"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}`),
	}
	parts := [][]byte{
		[]byte(`{"type":"step-start","id":"prt_1","sessionID":"ses_1","messageID":"msg_2","snapshot":"snp_1"}`),
		[]byte(`{"type":"text","id":"prt_2","sessionID":"ses_1","messageID":"msg_2","text":"hi"}`),
		[]byte(`{"type":"tool","id":"prt_3","sessionID":"ses_1","messageID":"msg_2","callID":"c","tool":"read","state":{"status":"pending","input":{},"raw":""}}`),
	}
	var strs Strings
	var sessions []string
	for _, b := range infos {
		var shared, plain Info
		if err := shared.Decode(b, &strs); err != nil {
			t.Fatal(err)
		}
		if err := plain.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(shared, plain) {
			t.Errorf("Decode(%s) = %+v, want %+v", b, shared, plain)
		}
		sessions = append(sessions, shared.SessionID)
	}
	for _, b := range parts {
		shared, err := DecodePart(b, &strs)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := UnmarshalPart(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(shared, plain) {
			t.Errorf("DecodePart(%s) = %+v, want %+v", b, shared, plain)
		}
		sessions = append(sessions, shared.Base().SessionID)
	}
	for i, s := range sessions {
		if unsafe.StringData(s) != unsafe.StringData(sessions[0]) {
			t.Errorf("session id %d is a copy of its own", i)
		}
	}
}
