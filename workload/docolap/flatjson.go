package docolap

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// flatEvent is what the normalized form keeps of one event: the values
// at the paths its columns hold, read from the event's JSON. A pointer is
// nil when the member is absent or null.
type flatEvent struct {
	ID, Type                  string
	ActorID, RepoID           int64
	ActorLogin, RepoName      string
	HasOrg                    bool
	OrgID                     int64
	OrgLogin                  string
	Public                    bool
	CreatedAt                 string
	Action, Ref, RefType      *string
	Size, DistinctSize, Numbr *int64
	HasIssue                  bool
	IssueNumber, Comments     *int64
	Commits                   []flatCommit
}

// flatCommit is one commit of payload.commits.
type flatCommit struct {
	SHA, Email, Name, Message string
	Distinct                  bool
}

// errJSON is a document that is not the JSON of an event.
var errJSON = errors.New("malformed event JSON")

// jsonReader reads the members flatEvent keeps from one JSON document
// and skips the others without decoding them: the generated events are
// mostly nested objects and text the normalized form has no column for,
// which encoding/json would decode or scan twice (about 15 times the
// cost of making the event). It takes any JSON (whitespace, escapes in
// strings); a value of another type than its column's is an error, as
// encoding/json's would be.
type jsonReader struct {
	b []byte
	i int
}

func (r *jsonReader) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errJSON, what, r.i)
}

func (r *jsonReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek is the next byte after whitespace, 0 at the end.
func (r *jsonReader) peek() byte {
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

func (r *jsonReader) expect(c byte) error {
	if r.peek() != c {
		return r.fail("want " + string(c))
	}
	r.i++
	return nil
}

// members calls member with each key of the object that starts here,
// positioned at its value, which member must read or skip.
func (r *jsonReader) members(member func(key []byte) error) error {
	if err := r.expect('{'); err != nil {
		return err
	}
	if r.peek() == '}' {
		r.i++
		return nil
	}
	for {
		k, err := r.key()
		if err != nil {
			return err
		}
		if err := r.expect(':'); err != nil {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return nil
		default:
			return r.fail("want , or }")
		}
	}
}

// elems calls elem at each element of the array that starts here.
func (r *jsonReader) elems(elem func() error) error {
	if err := r.expect('['); err != nil {
		return err
	}
	if r.peek() == ']' {
		r.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return nil
		default:
			return r.fail("want , or ]")
		}
	}
}

// key reads an object's key, without a copy when it has no escapes.
func (r *jsonReader) key() ([]byte, error) {
	if r.peek() != '"' {
		return nil, r.fail("want a key")
	}
	start, err := r.skipString()
	if err != nil {
		return nil, err
	}
	raw := r.b[start+1 : r.i-1]
	for _, c := range raw {
		if c == '\\' {
			var s string
			if err := json.Unmarshal(r.b[start:r.i], &s); err != nil {
				return nil, fmt.Errorf("%w: %v", errJSON, err)
			}
			return []byte(s), nil
		}
	}
	return raw, nil
}

// rawString reads a string; one with escapes is decoded by
// encoding/json.
func (r *jsonReader) rawString() (string, error) {
	if r.peek() != '"' {
		return "", r.fail("want a string")
	}
	start := r.i
	r.i++
	escaped := false
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case '\\':
			escaped = true
			r.i += 2
			continue
		case '"':
			r.i++
			if !escaped {
				return string(r.b[start+1 : r.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(r.b[start:r.i], &s); err != nil {
				return "", fmt.Errorf("%w: %v", errJSON, err)
			}
			return s, nil
		}
		r.i++
	}
	return "", r.fail("unterminated string")
}

// null reads a null if there is one.
func (r *jsonReader) null() bool {
	if r.peek() == 'n' && r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

func (r *jsonReader) str() (string, error) { return r.rawString() }

// optStr is a string or null (nil).
func (r *jsonReader) optStr() (*string, error) {
	if r.null() {
		return nil, nil
	}
	s, err := r.rawString()
	return &s, err
}

func (r *jsonReader) int() (int64, error) {
	r.ws()
	start := r.i
	for r.i < len(r.b) && (r.b[r.i] == '-' || r.b[r.i] >= '0' && r.b[r.i] <= '9') {
		r.i++
	}
	n, err := strconv.ParseInt(string(r.b[start:r.i]), 10, 64)
	if err != nil {
		return 0, r.fail("want an integer")
	}
	return n, nil
}

// optInt is an integer or null (nil).
func (r *jsonReader) optInt() (*int64, error) {
	if r.null() {
		return nil, nil
	}
	n, err := r.int()
	return &n, err
}

func (r *jsonReader) bool() (bool, error) {
	switch {
	case r.peek() == 't' && r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "true":
		r.i += 4
		return true, nil
	case r.peek() == 'f' && r.i+5 <= len(r.b) && string(r.b[r.i:r.i+5]) == "false":
		r.i += 5
		return false, nil
	}
	return false, r.fail("want true or false")
}

// skip passes over one value of any type, checking its brackets and
// strings only.
func (r *jsonReader) skip() error {
	depth := 0
	for {
		switch c := r.peek(); c {
		case 0:
			return r.fail("unexpected end")
		case '"':
			if _, err := r.skipString(); err != nil {
				return err
			}
		case '{', '[':
			depth++
			r.i++
		case '}', ']':
			if depth == 0 {
				return r.fail("unexpected " + string(c))
			}
			depth--
			r.i++
		case ',', ':':
			if depth == 0 {
				return r.fail("unexpected " + string(c))
			}
			r.i++
		default: // a number or a literal
			for r.i < len(r.b) && !isDelim(r.b[r.i]) {
				r.i++
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func (r *jsonReader) skipString() (int, error) {
	start := r.i
	r.i++
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case '\\':
			r.i += 2
			continue
		case '"':
			r.i++
			return start, nil
		}
		r.i++
	}
	return start, r.fail("unterminated string")
}

func isDelim(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// readFlat reads the event in b into ev, reusing its commits' slice.
func readFlat(b []byte, ev *flatEvent) error {
	commits := ev.Commits[:0]
	*ev = flatEvent{}
	r := &jsonReader{b: b}
	var err error
	err = r.members(func(k []byte) error {
		switch string(k) {
		case "id":
			ev.ID, err = r.str()
		case "type":
			ev.Type, err = r.str()
		case "actor":
			return r.members(func(k []byte) error {
				switch string(k) {
				case "id":
					ev.ActorID, err = r.int()
				case "login":
					ev.ActorLogin, err = r.str()
				default:
					return r.skip()
				}
				return err
			})
		case "repo":
			return r.members(func(k []byte) error {
				switch string(k) {
				case "id":
					ev.RepoID, err = r.int()
				case "name":
					ev.RepoName, err = r.str()
				default:
					return r.skip()
				}
				return err
			})
		case "org":
			if r.null() {
				return nil
			}
			ev.HasOrg = true
			return r.members(func(k []byte) error {
				switch string(k) {
				case "id":
					ev.OrgID, err = r.int()
				case "login":
					ev.OrgLogin, err = r.str()
				default:
					return r.skip()
				}
				return err
			})
		case "public":
			ev.Public, err = r.bool()
		case "created_at":
			ev.CreatedAt, err = r.str()
		case "payload":
			return readPayload(r, ev, &commits)
		default:
			return r.skip()
		}
		return err
	})
	ev.Commits = commits
	if err == nil && r.peek() != 0 {
		err = r.fail("data after the document")
	}
	return err
}

func readPayload(r *jsonReader, ev *flatEvent, commits *[]flatCommit) error {
	var err error
	return r.members(func(k []byte) error {
		switch string(k) {
		case "action":
			ev.Action, err = r.optStr()
		case "ref":
			ev.Ref, err = r.optStr()
		case "ref_type":
			ev.RefType, err = r.optStr()
		case "size":
			ev.Size, err = r.optInt()
		case "distinct_size":
			ev.DistinctSize, err = r.optInt()
		case "number":
			ev.Numbr, err = r.optInt()
		case "issue":
			if r.null() {
				return nil
			}
			ev.HasIssue = true
			return r.members(func(k []byte) error {
				switch string(k) {
				case "number":
					ev.IssueNumber, err = r.optInt()
				case "comments":
					ev.Comments, err = r.optInt()
				default:
					return r.skip()
				}
				return err
			})
		case "commits":
			if r.null() {
				return nil
			}
			return r.elems(func() error {
				var c flatCommit
				err := r.members(func(k []byte) error {
					var err error
					switch string(k) {
					case "sha":
						c.SHA, err = r.str()
					case "author":
						return r.members(func(k []byte) error {
							var err error
							switch string(k) {
							case "email":
								c.Email, err = r.str()
							case "name":
								c.Name, err = r.str()
							default:
								return r.skip()
							}
							return err
						})
					case "message":
						c.Message, err = r.str()
					case "distinct":
						c.Distinct, err = r.bool()
					default:
						return r.skip()
					}
					return err
				})
				*commits = append(*commits, c)
				return err
			})
		default:
			return r.skip()
		}
		return err
	})
}
