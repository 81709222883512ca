package tokens

import (
	"encoding/binary"
	_ "unsafe" // for go:linkname
)

// Format is what one token is, as written into a pipe.
type Format uint8

const (
	// Byte: one byte, the benchmark's classic.
	Byte Format = iota
	// Stamp: 8 bytes, the CLOCK_MONOTONIC time at which the token was
	// written, little-endian (latency mode). Pipe writes of 8 bytes are
	// atomic and every read takes a multiple of 8 bytes, so a token is
	// never torn. The clock is the runtime's (vDSO clock_gettime), the same
	// in every process, so the writer process's stamps compare with the
	// reader's clock.
	Stamp
	// Increment: an eventfd's increment of 1, 8 bytes; a read takes the
	// counter, the number of tokens, as 8 bytes.
	Increment
)

// StampSize is the size of a Stamp token (and of an Increment).
const StampSize = 8

// Size is the bytes one token write takes.
func (f Format) Size() int {
	if f == Byte {
		return 1
	}
	return StampSize
}

var (
	byteToken      = [1]byte{'t'}
	incrementToken = func() (b [8]byte) { binary.LittleEndian.PutUint64(b[:], 1); return }()
)

// ByteToken is a Byte token.
func ByteToken() []byte { return byteToken[:] }

// IncrementToken is an Increment token.
func IncrementToken() []byte { return incrementToken[:] }

// Next returns the token to write now in format f: buf holds a Stamp.
func (f Format) Next(buf *[8]byte) []byte {
	switch f {
	case Stamp:
		return PutStamp(buf, Nanotime())
	case Increment:
		return incrementToken[:]
	}
	return byteToken[:]
}

// Nanotime is the runtime's monotonic clock, in nanoseconds: what a Stamp
// holds.
//
//go:linkname Nanotime runtime.nanotime
func Nanotime() int64

// PutStamp puts now into buf and returns it as a token.
func PutStamp(buf *[8]byte, now int64) []byte {
	binary.LittleEndian.PutUint64(buf[:], uint64(now))
	return buf[:]
}
