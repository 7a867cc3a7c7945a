package wire

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	smithytime "github.com/aws/smithy-go/time"

	"github.com/s3bulk/s3bulk/store"
)

// A lighter ListObjectsV2 decoder.
//
// Listing a million keys, three quarters of the client's CPU went to the
// SDK's decoding of ListObjectsV2 responses: encoding/xml tokenizes every
// byte through an interface, and the SDK allocates a pointer for every
// field of every object, most of which a listing never reads. s3store's
// listDecoder takes the SDK's place for ListPage's requests only: it reads
// the body once and DecodeListPage scans it for the fields a page carries (each object's Key,
// Size, LastModified, ETag and StorageClass, each CommonPrefixes' Prefix,
// IsTruncated and NextContinuationToken), straight into a store.Page.
//
// It accepts only what it fully understands and gives every field the
// value the SDK would: element names compared without regard to case,
// the same character references and character checks as encoding/xml,
// the same number, boolean and time parsing. Anything else (a CDATA
// section, a DOCTYPE, a raw carriage return, a namespace prefix, a nested
// element where a value belongs, a value that does not parse) and every
// answer that is not a 2xx goes to the SDK's own decoder with the same
// bytes, so an odd but valid answer is decoded as before and a bad one
// fails as before. Elements a page does not use are checked only for
// being well formed. s3store's listxml_test.go compares the two decoders
// on the answers of real servers and on fuzzed documents.

// MergePage builds a page from a listing's objects and common prefixes,
// both in byte order, merged into that order. Without prefixes (every
// flat listing) the page is objs itself, not a copy.
func MergePage(objs []store.Object, prefixes []string, next string) store.Page {
	if len(prefixes) == 0 && objs != nil {
		return store.Page{Objects: objs, Next: next}
	}
	page := store.Page{Objects: make([]store.Object, 0, len(objs)+len(prefixes)), Next: next}
	for len(objs) > 0 || len(prefixes) > 0 {
		if len(prefixes) > 0 && (len(objs) == 0 || prefixes[0] < objs[0].Key) {
			page.Objects = append(page.Objects, store.Object{Key: prefixes[0], IsPrefix: true})
			prefixes = prefixes[1:]
			continue
		}
		page.Objects = append(page.Objects, objs[0])
		objs = objs[1:]
	}
	return page
}

// DecodeListPage decodes a ListObjectsV2 answer. ok is false when the body
// holds anything the scanner does not handle; the SDK decodes it then.
func DecodeListPage(body []byte) (page store.Page, ok bool) {
	x := xmlScanner{b: body}
	if !x.misc() {
		return store.Page{}, false
	}
	root, empty, ok := x.startTag()
	if !ok {
		return store.Page{}, false
	}
	var (
		objs      []store.Object
		prefixes  []string
		truncated bool
		next      string
	)
	for !empty {
		name, done, ok := x.child(root)
		if !ok {
			return store.Page{}, false
		}
		if done {
			break
		}
		selfClosing := x.closed
		switch {
		case bytes.EqualFold(name, []byte("Contents")):
			if objs == nil {
				objs = make([]store.Object, 0, PageSize)
			}
			o, ok := x.object(name, selfClosing)
			if !ok {
				return store.Page{}, false
			}
			objs = append(objs, o)
		case bytes.EqualFold(name, []byte("CommonPrefixes")):
			p, ok := x.commonPrefix(name, selfClosing)
			if !ok {
				return store.Page{}, false
			}
			prefixes = append(prefixes, p)
		case bytes.EqualFold(name, []byte("IsTruncated")):
			v, ok := x.value(name, selfClosing)
			if !ok {
				return store.Page{}, false
			}
			b, err := strconv.ParseBool(string(v))
			if err != nil {
				return store.Page{}, false
			}
			truncated = b
		case bytes.EqualFold(name, []byte("NextContinuationToken")):
			v, ok := x.value(name, selfClosing)
			if !ok {
				return store.Page{}, false
			}
			next = string(v)
		default:
			if !x.unused(name, selfClosing, rootFields) {
				return store.Page{}, false
			}
		}
	}
	if !truncated {
		next = ""
	}
	return MergePage(objs, prefixes, next), true
}

// object decodes the children of one Contents element.
func (x *xmlScanner) object(parent []byte, empty bool) (store.Object, bool) {
	var o store.Object
	for !empty {
		name, done, ok := x.child(parent)
		if !ok {
			return o, false
		}
		if done {
			break
		}
		selfClosing := x.closed
		var field *string
		switch {
		case bytes.EqualFold(name, []byte("Key")):
			field = &o.Key
		case bytes.EqualFold(name, []byte("ETag")):
			field = &o.ETag
		case bytes.EqualFold(name, []byte("StorageClass")):
			field = &o.StorageClass
		case bytes.EqualFold(name, []byte("Size")):
			v, ok := x.value(name, selfClosing)
			if !ok {
				return o, false
			}
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return o, false
			}
			o.Size = n
			continue
		case bytes.EqualFold(name, []byte("LastModified")):
			v, ok := x.value(name, selfClosing)
			if !ok {
				return o, false
			}
			t, err := smithytime.ParseDateTime(string(v))
			if err != nil {
				return o, false
			}
			o.ModTime = t
			continue
		default:
			if !x.unused(name, selfClosing, objectFields) {
				return o, false
			}
			continue
		}
		v, ok := x.value(name, selfClosing)
		if !ok {
			return o, false
		}
		*field = internClass(field == &o.StorageClass, v)
	}
	o.ETag = store.TrimETag(o.ETag)
	return o, true
}

// What the SDK parses of the fields a page does not use: a value of such
// a field that it refuses, this decoder must refuse too.
type fieldKind int

const (
	textField fieldKind = iota + 1
	intField
	boolField
	timeField
	ownerField
	restoreField
)

var (
	rootFields = map[string]fieldKind{
		"continuationtoken": textField, "delimiter": textField, "encodingtype": textField,
		"name": textField, "prefix": textField, "startafter": textField,
		"keycount": intField, "maxkeys": intField,
	}
	objectFields = map[string]fieldKind{
		"checksumalgorithm": textField, "checksumtype": textField,
		"owner": ownerField, "restorestatus": restoreField,
	}
	ownerFields   = map[string]fieldKind{"displayname": textField, "id": textField}
	restoreFields = map[string]fieldKind{"isrestoreinprogress": boolField, "restoreexpirydate": timeField}
)

// unused checks and passes over an element whose value a page does not
// use, as strictly as the SDK parses it.
func (x *xmlScanner) unused(name []byte, empty bool, fields map[string]fieldKind) bool {
	var lower [32]byte
	kind := fieldKind(0)
	if len(name) <= len(lower) {
		for i, c := range name {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		kind = fields[string(lower[:len(name)])]
	}
	switch kind {
	case ownerField, restoreField:
		sub := ownerFields
		if kind == restoreField {
			sub = restoreFields
		}
		for !empty {
			child, done, ok := x.child(name)
			if !ok {
				return false
			}
			if done {
				break
			}
			if !x.unused(child, x.closed, sub) {
				return false
			}
		}
		return true
	case 0:
		return x.skip(name, empty)
	}
	v, ok := x.value(name, empty)
	if !ok {
		return false
	}
	var err error
	switch kind {
	case intField:
		_, err = strconv.ParseInt(string(v), 10, 64)
	case boolField:
		_, err = strconv.ParseBool(string(v))
	case timeField:
		_, err = smithytime.ParseDateTime(string(v))
	}
	return err == nil
}

// internClass returns v as a string, without a new one for the storage
// classes every object of a listing repeats.
func internClass(class bool, v []byte) string {
	if class {
		switch string(v) {
		case "STANDARD":
			return "STANDARD"
		case "STANDARD_IA":
			return "STANDARD_IA"
		case "GLACIER":
			return "GLACIER"
		case "DEEP_ARCHIVE":
			return "DEEP_ARCHIVE"
		case "INTELLIGENT_TIERING":
			return "INTELLIGENT_TIERING"
		}
	}
	return string(v)
}

// commonPrefix decodes the children of one CommonPrefixes element.
func (x *xmlScanner) commonPrefix(parent []byte, empty bool) (string, bool) {
	var p string
	for !empty {
		name, done, ok := x.child(parent)
		if !ok {
			return "", false
		}
		if done {
			break
		}
		if !bytes.EqualFold(name, []byte("Prefix")) {
			if !x.skip(name, x.closed) {
				return "", false
			}
			continue
		}
		v, ok := x.value(name, x.closed)
		if !ok {
			return "", false
		}
		p = string(v)
	}
	return p, true
}

// xmlScanner reads the subset of XML that S3 answers are written in.
// Every method returns ok false on anything outside it.
type xmlScanner struct {
	b []byte
	i int
	// closed is whether the last start tag read was self-closing.
	closed bool
	// text holds a value whose character references were replaced.
	text []byte
	// depth guards skip against deep nesting.
	depth int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func isNameStart(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' }

func isNameByte(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// misc skips what may come before and between elements: space, comments
// and processing instructions (the XML declaration). Text that is not
// space is left for the caller.
func (x *xmlScanner) misc() bool {
	for {
		for x.i < len(x.b) && isSpace(x.b[x.i]) {
			x.i++
		}
		rest := x.b[x.i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<?")):
			end := bytes.Index(rest[2:], []byte("?>"))
			if end < 0 || !xmlDeclaration(rest[2:2+end]) {
				return false
			}
			x.i += 2 + end + 2
		case bytes.HasPrefix(rest, []byte("<!--")):
			end := bytes.Index(rest[4:], []byte("-->"))
			if end < 0 {
				return false
			}
			body := rest[4 : 4+end]
			if bytes.Contains(body, []byte("--")) || bytes.HasSuffix(body, []byte("-")) || !validChars(body) {
				return false
			}
			x.i += 4 + end + 3
		default:
			return true
		}
	}
}

// xmlDeclaration reports whether a processing instruction is one that
// encoding/xml accepts and this scanner can read: the XML declaration, of
// version 1.0 and in UTF-8 when it says.
func xmlDeclaration(pi []byte) bool {
	if !bytes.HasPrefix(pi, []byte("xml")) || len(pi) > 3 && !isSpace(pi[3]) || !validChars(pi) {
		return false
	}
	content := string(bytes.TrimLeft(pi[3:], " \t\n"))
	ver, enc := procInst("version", content), procInst("encoding", content)
	return (ver == "" || ver == "1.0") && (enc == "" || strings.EqualFold(enc, "utf-8"))
}

// procInst is encoding/xml's reading of a pseudo-attribute of the XML
// declaration.
func procInst(param, s string) string {
	param += "="
	lenp := len(param)
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || lenp+k >= len(sub) {
			return ""
		}
		i += lenp + k + 1
		if c := sub[lenp+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

// name reads an element or attribute name: ASCII, no namespace prefix.
func (x *xmlScanner) name() ([]byte, bool) {
	start := x.i
	if x.i >= len(x.b) || !isNameStart(x.b[x.i]) {
		return nil, false
	}
	for x.i < len(x.b) && isNameByte(x.b[x.i]) {
		x.i++
	}
	return x.b[start:x.i], true
}

// attrName reads an attribute name, which may have a namespace prefix.
func (x *xmlScanner) attrName() bool {
	if x.i >= len(x.b) || !isNameStart(x.b[x.i]) && x.b[x.i] != ':' {
		return false
	}
	for x.i < len(x.b) && (isNameByte(x.b[x.i]) || x.b[x.i] == ':') {
		x.i++
	}
	return true
}

// startTag reads "<name attr='v' ...>" or "<name .../>" at the current
// position; empty is whether it closed itself.
func (x *xmlScanner) startTag() (name []byte, empty, ok bool) {
	if x.i >= len(x.b) || x.b[x.i] != '<' {
		return nil, false, false
	}
	x.i++
	if name, ok = x.name(); !ok {
		return nil, false, false
	}
	for {
		for x.i < len(x.b) && isSpace(x.b[x.i]) {
			x.i++
		}
		if x.i >= len(x.b) {
			return nil, false, false
		}
		switch x.b[x.i] {
		case '>':
			x.i++
			return name, false, true
		case '/':
			if x.i+1 < len(x.b) && x.b[x.i+1] == '>' {
				x.i += 2
				return name, true, true
			}
			return nil, false, false
		}
		// An attribute: name = "value" or 'value', with no references.
		if !x.attrName() {
			return nil, false, false
		}
		for x.i < len(x.b) && isSpace(x.b[x.i]) {
			x.i++
		}
		if x.i >= len(x.b) || x.b[x.i] != '=' {
			return nil, false, false
		}
		x.i++
		for x.i < len(x.b) && isSpace(x.b[x.i]) {
			x.i++
		}
		if x.i >= len(x.b) || (x.b[x.i] != '"' && x.b[x.i] != '\'') {
			return nil, false, false
		}
		q := x.b[x.i]
		end := bytes.IndexByte(x.b[x.i+1:], q)
		if end < 0 {
			return nil, false, false
		}
		v := x.b[x.i+1 : x.i+1+end]
		if bytes.ContainsAny(v, "<&\r") || !validChars(v) {
			return nil, false, false
		}
		x.i += end + 2
	}
}

// endTag reads "</name>" for the element name.
func (x *xmlScanner) endTag(name []byte) bool {
	if !bytes.HasPrefix(x.b[x.i:], []byte("</")) {
		return false
	}
	x.i += 2
	got, ok := x.name()
	if !ok || !bytes.Equal(got, name) {
		return false
	}
	for x.i < len(x.b) && isSpace(x.b[x.i]) {
		x.i++
	}
	if x.i >= len(x.b) || x.b[x.i] != '>' {
		return false
	}
	x.i++
	return true
}

// child moves to the next child element of parent: it returns its name
// (x.closed says whether it closed itself), or done at parent's end tag.
// Text, comments and processing instructions between children are checked
// and skipped, as the SDK does.
func (x *xmlScanner) child(parent []byte) (name []byte, done, ok bool) {
	for {
		if _, ok := x.chars(); !ok || x.i >= len(x.b) {
			return nil, false, false
		}
		rest := x.b[x.i:]
		switch {
		case bytes.HasPrefix(rest, []byte("</")):
			return nil, true, x.endTag(parent)
		case bytes.HasPrefix(rest, []byte("<!--")), bytes.HasPrefix(rest, []byte("<?")):
			if !x.misc() {
				return nil, false, false
			}
			continue
		case bytes.HasPrefix(rest, []byte("<!")):
			return nil, false, false // CDATA, DOCTYPE
		}
		name, empty, ok := x.startTag()
		x.closed = empty
		return name, false, ok
	}
}

// value reads the text of a leaf element and its end tag. The result is
// valid until the next call.
func (x *xmlScanner) value(name []byte, empty bool) ([]byte, bool) {
	if empty {
		return []byte{}, true
	}
	v, ok := x.chars()
	if !ok || !x.endTag(name) {
		return nil, false
	}
	return v, true
}

// skip passes over an element whose start tag was just read, checking
// that it is well formed.
func (x *xmlScanner) skip(name []byte, empty bool) bool {
	if empty {
		return true
	}
	x.depth++
	defer func() { x.depth-- }()
	if x.depth > 64 {
		return false
	}
	for {
		child, done, ok := x.child(name)
		if !ok {
			return false
		}
		if done {
			return true
		}
		if !x.skip(child, x.closed) {
			return false
		}
	}
}

// chars reads text up to the next '<', replacing character references as
// encoding/xml does, and refuses what encoding/xml would refuse or
// rewrite (a raw carriage return, "]]>", a character XML does not allow).
func (x *xmlScanner) chars() ([]byte, bool) {
	start := x.i
	end := bytes.IndexByte(x.b[x.i:], '<')
	if end < 0 {
		end = len(x.b) - x.i
	}
	raw := x.b[start : start+end]
	x.i += end
	if bytes.Contains(raw, []byte("]]>")) || bytes.IndexByte(raw, '\r') >= 0 {
		return nil, false
	}
	amp := bytes.IndexByte(raw, '&')
	if amp < 0 {
		return raw, validChars(raw)
	}
	out := append(x.text[:0], raw[:amp]...)
	for rest := raw[amp:]; len(rest) > 0; {
		if rest[0] != '&' {
			n := bytes.IndexByte(rest, '&')
			if n < 0 {
				n = len(rest)
			}
			out = append(out, rest[:n]...)
			rest = rest[n:]
			continue
		}
		semi := bytes.IndexByte(rest, ';')
		if semi < 0 {
			return nil, false
		}
		r, ok := reference(rest[1:semi])
		if !ok {
			return nil, false
		}
		out = utf8.AppendRune(out, r)
		rest = rest[semi+1:]
	}
	x.text = out
	return out, validChars(out)
}

// reference decodes the inside of "&...;".
func reference(ref []byte) (rune, bool) {
	switch string(ref) {
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "amp":
		return '&', true
	case "apos":
		return '\'', true
	case "quot":
		return '"', true
	}
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	digits, base := ref[1:], 10
	if digits[0] == 'x' {
		digits, base = digits[1:], 16
	}
	if len(digits) == 0 || len(digits) > 8 {
		return 0, false
	}
	for _, c := range digits {
		if !(c >= '0' && c <= '9' || base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(string(digits), base, 32)
	if err != nil || !inCharacterRange(rune(n)) || n >= 0xD800 && n < 0xE000 {
		return 0, false
	}
	return rune(n), true
}

// validChars reports whether b is UTF-8 of characters XML allows.
func validChars(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || !inCharacterRange(r) {
			return false
		}
		i += size
	}
	return true
}

// inCharacterRange is XML's Char production, as encoding/xml checks it.
func inCharacterRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// PageSize is S3's largest page of a listing, asked for explicitly because
// some S3-compatible servers default to less.
const PageSize = 1000
