// Package fakegh is a fake of the part of GitHub's REST API that codeloop
// github run uses, for tests: it answers from templates shaped after
// GitHub's documented responses (testdata/), keeps the comments, pull
// requests and reviews it is sent, and can be told to fail a route. It also
// writes the event files GitHub Actions hands a job.
//
// Tests import it; the product never does.
package fakegh

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"text/template"
)

//go:embed testdata/*.json testdata/events/*.json
var files embed.FS

func templates() *template.Template {
	funcs := template.FuncMap{"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	}}
	return template.Must(template.New("").Funcs(funcs).ParseFS(files, "testdata/*.json", "testdata/events/*.json"))
}

// Call is a request the server received.
type Call struct {
	Method, Path string
	Body         []byte
	Auth         string // the Authorization header
}

// Comment is an issue comment as last written.
type Comment struct {
	ID     int64
	Number int
	Body   string
	Edits  int
}

// Pull is a pull request the fake knows: one it was asked to open, or one
// a test declares.
type Pull struct {
	Number           int
	Title, Body      string
	HeadRef, HeadSHA string
	HeadRepo         string // owner/name
	BaseRef, BaseSHA string
	Author           string
}

// Review is a review the fake was sent.
type Review struct {
	Number   int
	CommitID string
	Body     string
	Event    string
	Comments []ReviewComment
}

// ReviewComment is an inline comment of a review.
type ReviewComment struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Side string `json:"side"`
	Body string `json:"body"`
}

// Failure is how a route fails.
type Failure struct {
	Status     int
	RetryAfter string // the Retry-After header, when set
	Message    string
	// DocURL is the answer's documentation_url; a failure with RetryAfter
	// points to the secondary rate limits' page, as GitHub's do.
	DocURL string
}

// Server is the fake API. Its zero value is not usable; call New.
type Server struct {
	Owner, Repo string
	Token       string // the token requests must carry

	tpl *template.Template
	mux *http.ServeMux

	mu       sync.Mutex
	api      string // the server's own address, for URLs in answers
	perms    map[string]string
	pulls    map[int]*Pull
	fail     map[string]Failure
	calls    []Call
	comments []*Comment
	replies  []Comment
	reviews  []Review
	reacts   []string
	nextID   int64
}

// New returns a server for owner/repo that accepts token.
func New(owner, repo, token string) *Server {
	s := &Server{Owner: owner, Repo: repo, Token: token, tpl: templates(), perms: map[string]string{},
		pulls: map[int]*Pull{}, fail: map[string]Failure{}, nextID: 9000}
	m := http.NewServeMux()
	route := func(pattern string, h func(w http.ResponseWriter, r *http.Request, body []byte)) {
		m.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { s.serve(pattern, h, w, r) })
	}
	const repoPath = "/repos/{owner}/{repo}"
	route("GET "+repoPath+"/collaborators/{user}/permission", s.permission)
	route("POST "+repoPath+"/issues/comments/{id}/reactions", s.reaction)
	route("POST "+repoPath+"/issues/{number}/reactions", s.reaction)
	route("POST "+repoPath+"/pulls/comments/{id}/reactions", s.reaction)
	route("POST "+repoPath+"/issues/{number}/comments", s.createComment)
	route("PATCH "+repoPath+"/issues/comments/{id}", s.editComment)
	route("GET "+repoPath+"/pulls/{number}", s.getPull)
	route("POST "+repoPath+"/pulls", s.createPull)
	route("POST "+repoPath+"/pulls/{number}/comments", s.replyComment)
	route("POST "+repoPath+"/pulls/{number}/reviews", s.createReview)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.record(r, nil)
		s.errorAnswer(w, http.StatusNotFound, "Not Found")
	})
	s.mux = m
	return s
}

// SetURL tells the server its address, for the URLs of its answers.
func (s *Server) SetURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.api = strings.TrimRight(u, "/")
}

// SetPermission sets a user's permission: admin, maintain, write, triage,
// read or none.
func (s *Server) SetPermission(user, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.perms[user] = perm
}

// AddPull declares a pull request.
func (s *Server) AddPull(p Pull) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pulls[p.Number] = &p
}

// Fail makes the route (a pattern such as "GET /repos/{owner}/{repo}/pulls/{number}",
// with the placeholders as written) answer f.
func (s *Server) Fail(route string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[route] = f
}

// ServeHTTP answers a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) serve(pattern string, h func(http.ResponseWriter, *http.Request, []byte), w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.record(r, body)
	if r.PathValue("owner") != s.Owner || r.PathValue("repo") != s.Repo {
		s.errorAnswer(w, http.StatusNotFound, "Not Found")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		s.errorAnswer(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	s.mu.Lock()
	f, failing := s.fail[pattern]
	s.mu.Unlock()
	if failing {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		msg := f.Message
		if msg == "" {
			msg = http.StatusText(f.Status)
		}
		doc := f.DocURL
		if doc == "" && f.RetryAfter != "" {
			doc = "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits"
		}
		s.render(w, f.Status, "error.json", map[string]any{"Message": msg, "DocURL": doc})
		return
	}
	h(w, r, body)
}

func (s *Server) record(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, Call{Method: r.Method, Path: r.URL.Path, Body: body, Auth: r.Header.Get("Authorization")})
}

func (s *Server) render(w http.ResponseWriter, status int, name string, data map[string]any) {
	s.mu.Lock()
	data["API"], data["Owner"], data["Repo"] = s.api, s.Owner, s.Repo
	s.mu.Unlock()
	var b bytes.Buffer
	if err := s.tpl.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func (s *Server) errorAnswer(w http.ResponseWriter, status int, msg string) {
	s.render(w, status, "error.json", map[string]any{"Message": msg, "DocURL": ""})
}

func (s *Server) id() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return s.nextID
}

func (s *Server) permission(w http.ResponseWriter, r *http.Request, _ []byte) {
	user := r.PathValue("user")
	s.mu.Lock()
	perm, ok := s.perms[user]
	s.mu.Unlock()
	if !ok {
		s.errorAnswer(w, http.StatusNotFound, user+" is not a user")
		return
	}
	// The permission field predates maintain and triage, which it reports
	// as write and read; role_name holds the role itself.
	legacy := perm
	switch perm {
	case "maintain":
		legacy = "write"
	case "triage":
		legacy = "read"
	}
	s.render(w, http.StatusOK, "permission.json", map[string]any{"Permission": legacy, "Role": perm, "Login": user})
}

func (s *Server) reaction(w http.ResponseWriter, r *http.Request, body []byte) {
	var in struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(body, &in) != nil || in.Content == "" {
		s.errorAnswer(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	s.mu.Lock()
	s.reacts = append(s.reacts, r.URL.Path+" "+in.Content)
	s.mu.Unlock()
	s.render(w, http.StatusCreated, "reaction.json", map[string]any{"ID": s.id(), "Content": in.Content})
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request, body []byte) {
	n, err := strconv.Atoi(r.PathValue("number"))
	var in struct {
		Body string `json:"body"`
	}
	if err != nil || json.Unmarshal(body, &in) != nil || in.Body == "" {
		s.errorAnswer(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	c := &Comment{ID: s.id(), Number: n, Body: in.Body}
	s.mu.Lock()
	s.comments = append(s.comments, c)
	s.mu.Unlock()
	s.render(w, http.StatusCreated, "comment.json", map[string]any{"ID": c.ID, "Number": n, "Body": c.Body})
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request, body []byte) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct {
		Body string `json:"body"`
	}
	if json.Unmarshal(body, &in) != nil || in.Body == "" {
		s.errorAnswer(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	s.mu.Lock()
	var c *Comment
	for _, have := range s.comments {
		if have.ID == id {
			c = have
		}
	}
	if c != nil {
		c.Body = in.Body
		c.Edits++
	}
	s.mu.Unlock()
	if c == nil {
		s.errorAnswer(w, http.StatusNotFound, "Not Found")
		return
	}
	s.render(w, http.StatusOK, "comment.json", map[string]any{"ID": c.ID, "Number": c.Number, "Body": in.Body})
}

func (s *Server) pullData(p *Pull) map[string]any {
	head := p.HeadRepo
	if head == "" {
		head = s.Owner + "/" + s.Repo
	}
	owner, name, _ := strings.Cut(head, "/")
	return map[string]any{
		"ID": int64(6000 + p.Number), "Number": p.Number, "Title": p.Title, "Body": p.Body, "Author": p.Author,
		"HeadLabel": owner + ":" + p.HeadRef, "HeadRef": p.HeadRef, "HeadSHA": p.HeadSHA, "HeadRepo": head, "HeadName": name,
		"Fork": head != s.Owner+"/"+s.Repo, "BaseRef": p.BaseRef, "BaseSHA": p.BaseSHA,
	}
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, _ []byte) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	p, ok := s.pulls[n]
	s.mu.Unlock()
	if !ok {
		s.errorAnswer(w, http.StatusNotFound, "Not Found")
		return
	}
	s.render(w, http.StatusOK, "pull.json", s.pullData(p))
}

func (s *Server) createPull(w http.ResponseWriter, _ *http.Request, body []byte) {
	var in struct {
		Title, Head, Base, Body string
	}
	if json.Unmarshal(body, &in) != nil || in.Title == "" || in.Head == "" || in.Base == "" {
		s.errorAnswer(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	s.mu.Lock()
	n := 100 + len(s.pulls)
	p := &Pull{Number: n, Title: in.Title, Body: in.Body, HeadRef: in.Head, BaseRef: in.Base, Author: "github-actions[bot]"}
	s.pulls[n] = p
	s.mu.Unlock()
	s.render(w, http.StatusCreated, "pull.json", s.pullData(p))
}

func (s *Server) replyComment(w http.ResponseWriter, r *http.Request, body []byte) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	var in struct {
		Body      string `json:"body"`
		InReplyTo int64  `json:"in_reply_to"`
	}
	if json.Unmarshal(body, &in) != nil || in.Body == "" || in.InReplyTo == 0 {
		s.errorAnswer(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	c := Comment{ID: s.id(), Number: n, Body: in.Body}
	s.mu.Lock()
	s.replies = append(s.replies, c)
	s.mu.Unlock()
	s.render(w, http.StatusCreated, "review_comment.json", map[string]any{"ID": c.ID, "Number": n, "Body": in.Body, "InReplyTo": in.InReplyTo})
}

func (s *Server) createReview(w http.ResponseWriter, r *http.Request, body []byte) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	var in struct {
		CommitID string          `json:"commit_id"`
		Body     string          `json:"body"`
		Event    string          `json:"event"`
		Comments []ReviewComment `json:"comments"`
	}
	if json.Unmarshal(body, &in) != nil {
		s.errorAnswer(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	for _, c := range in.Comments {
		if c.Path == "" || c.Line <= 0 || c.Body == "" {
			s.errorAnswer(w, http.StatusUnprocessableEntity, "Unprocessable Entity: a comment lacks its path, line or body")
			return
		}
	}
	s.mu.Lock()
	s.reviews = append(s.reviews, Review{Number: n, CommitID: in.CommitID, Body: in.Body, Event: in.Event, Comments: in.Comments})
	s.mu.Unlock()
	s.render(w, http.StatusOK, "review.json", map[string]any{"ID": s.id(), "Number": n, "Body": in.Body, "CommitID": in.CommitID})
}

// Calls returns the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Comments returns the issue comments as last written.
func (s *Server) Comments() []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Comment, len(s.comments))
	for i, c := range s.comments {
		out[i] = *c
	}
	return out
}

// Replies returns the replies to review comments.
func (s *Server) Replies() []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Comment(nil), s.replies...)
}

// Reviews returns the reviews posted.
func (s *Server) Reviews() []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Review(nil), s.reviews...)
}

// Reactions returns the reactions added, as "path content".
func (s *Server) Reactions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reacts...)
}

// Opened returns the pull requests opened through the API.
func (s *Server) Opened() []Pull {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Pull
	for n, p := range s.pulls {
		if n >= 100 {
			out = append(out, *p)
		}
	}
	return out
}

// Event is what an event file holds.
type Event struct {
	Owner, Repo   string
	Action        string // issues and pull_request events
	Number        int
	IsPR          bool // an issue_comment on a pull request
	Title         string
	IssueBody     string
	Comment       string
	CommentID     int64
	Actor         string
	Author        string // the issue's author in issues events; Actor by default
	ActorType     string // "User" by default
	Association   string // the event's author_association, never to be trusted
	DefaultBranch string
	HeadRef       string
	HeadSHA       string
	HeadRepo      string
	BaseSHA       string
	Path          string
	Line          int
	DiffHunk      string
}

// EventFile renders the payload of the named event (issue_comment,
// issues, pull_request_review_comment, pull_request).
func EventFile(name string, e Event) ([]byte, error) {
	if e.ActorType == "" {
		e.ActorType = "User"
	}
	if e.Association == "" {
		e.Association = "OWNER"
	}
	if e.Author == "" {
		e.Author = e.Actor
	}
	if e.DefaultBranch == "" {
		e.DefaultBranch = "main"
	}
	if e.HeadRepo == "" {
		e.HeadRepo = e.Owner + "/" + e.Repo
	}
	var b bytes.Buffer
	if err := templates().ExecuteTemplate(&b, name+".json", e); err != nil {
		return nil, fmt.Errorf("event %s: %w", name, err)
	}
	if !json.Valid(b.Bytes()) {
		return nil, fmt.Errorf("event %s: the template makes invalid JSON", name)
	}
	return b.Bytes(), nil
}
