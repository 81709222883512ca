package tokens

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// SendCredit writes one credit word, c tokens' credit (or StopWord), in one
// 8-byte write, which the kernel keeps whole however many readers share
// the pipe; the credit pipe is large enough that it never blocks (see
// NewCreditPipe).
func SendCredit(fd int32, buf *[8]byte, c uint64) error {
	if n, e := Write(fd, CreditWord(buf, c)).Split(); e != 0 || n != 8 {
		return CreditErr(c, n, e)
	}
	return nil
}

// CreditWord puts c into buf as the credit word SendCredit writes and
// returns it, for a loop that makes the write in its own body (the
// reader's, which SendCredit's frame would return through after the
// write).
func CreditWord(buf *[8]byte, c uint64) []byte {
	binary.LittleEndian.PutUint64(buf[:], c)
	return buf[:]
}

// CreditErr is the error of a credit word's write that returned n and e
// instead of writing the word whole.
func CreditErr(c uint64, n int, e unix.Errno) error {
	if e != 0 {
		return fmt.Errorf("write %d credits: %w", c, e)
	}
	return fmt.Errorf("write %d credits: short write of %d bytes", c, n)
}

// creditPipeSize holds more credit words than tokens can be in flight.
const creditPipeSize = 1 << 16

// NewCreditPipe makes the reader-to-writer credit pipe for inFlight tokens. Its write end is
// non-blocking for the reader. Its read end blocks only for a writer
// process that waits for credits (blocking): a writer thread sleeps in
// ppoll and reads without blocking, an unbounded writer only looks for the
// stop word (syscalls.go).
//
// At most one credit word per token in flight, and the stop word, wait in
// it; a user over pipe-user-pages-soft cannot grow a pipe past two pages,
// which is still enough for up to 1022 tokens in flight.
func NewCreditPipe(blocking bool, inFlight int) (r, w int32, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, fmt.Errorf("make credit pipe: %w", err)
	}
	closeBoth := func() { unix.Close(p[0]); unix.Close(p[1]) }
	if _, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, creditPipeSize); err != nil {
		size, gerr := unix.FcntlInt(uintptr(p[1]), unix.F_GETPIPE_SZ, 0)
		if need := 8 * (inFlight + 2); gerr != nil || size < need {
			closeBoth()
			return -1, -1, fmt.Errorf("the credit pipe holds %d bytes, fewer than the %d that %d tokens in flight may need, and cannot grow to %d (%w): this user is over /proc/sys/fs/pipe-user-pages-soft; use a smaller -l or close other pipes",
				size, need, inFlight, creditPipeSize, err)
		}
	}
	if err := unix.SetNonblock(p[1], true); err != nil {
		closeBoth()
		return -1, -1, fmt.Errorf("credit pipe: %w", err)
	}
	if err := unix.SetNonblock(p[0], !blocking); err != nil {
		closeBoth()
		return -1, -1, fmt.Errorf("credit pipe: %w", err)
	}
	return int32(p[0]), int32(p[1]), nil
}
