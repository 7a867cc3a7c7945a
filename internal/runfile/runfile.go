// Package runfile reads the files of `s3bulk run`: one command a line,
// split into words as a POSIX shell does without its expansions, with
// comments and blank lines skipped.
package runfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LineError is a line Each could not read: Syntax when its words cannot
// be split (an unterminated quote), else the reader's error.
type LineError struct {
	Line   int
	Syntax bool
	Err    error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Each calls fn with the number (from 1) and the words of every command
// line of r: comments and blank lines are skipped, and a leading "s3bulk"
// is dropped. An error from fn stops it and is returned as it is.
func Each(r io.Reader, fn func(n int, args []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		args, err := Split(strings.TrimSuffix(sc.Text(), "\r"))
		if err != nil {
			return &LineError{Line: n, Syntax: true, Err: err}
		}
		if len(args) > 0 && args[0] == "s3bulk" {
			args = args[1:]
		}
		if len(args) == 0 {
			continue
		}
		if err := fn(n, args); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &LineError{Line: n + 1, Err: err}
	}
	return nil
}

// Split splits a line into words as a POSIX shell does, without
// expansions: blanks separate words; 'single quotes' keep everything;
// "double quotes" keep everything but a backslash before " or \; outside
// quotes a backslash keeps the next character; an unquoted # starting a
// word begins a comment.
func Split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a line ends with a backslash")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
