package hashing

import "sync"

// inOrder runs a three-stage pipeline over reusable chunks: fill, on one
// goroutine, loads the next chunk from the input; work, on workers
// goroutines (one func each, from newWork), processes chunks in any order;
// emit, on the calling goroutine, takes them in fill's order. At most
// 2*workers chunks exist, so memory stays bounded whatever the input.
//
// fill reports whether the chunk holds anything to process and whether the
// input ended, with the error that ended it. Once emit fails nothing more is
// read; inOrder returns after every goroutine has stopped, with emit's error,
// else fill's. A chunk goes back to fill only after its work is done, so no
// worker ever holds a chunk being refilled.
func inOrder[C any](workers int, newChunk func() C, newWork func() func(C), fill func(C) (has, end bool, err error), emit func(C) error) error {
	workers = max(workers, 1)
	type slot struct {
		c    C
		done chan struct{}
	}
	inFlight := 2 * workers
	free := make(chan *slot, inFlight)
	for range inFlight {
		free <- &slot{c: newChunk()}
	}
	todo := make(chan *slot)
	ordered := make(chan *slot, inFlight)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		work := newWork()
		wg.Go(func() {
			for s := range todo {
				work(s.c)
				close(s.done)
			}
		})
	}

	var readErr error
	wg.Go(func() {
		defer close(ordered)
		defer close(todo)
		for {
			var s *slot
			select {
			case s = <-free:
			case <-stop:
				return
			}
			has, end, err := fill(s.c)
			if err != nil {
				readErr = err
			}
			if has {
				s.done = make(chan struct{})
				ordered <- s
				select {
				case todo <- s:
				case <-stop:
					close(s.done) // no worker has it: the emitter must not wait
					return
				}
			}
			if end || err != nil {
				return
			}
		}
	})

	var emitErr error
	for s := range ordered {
		// Wait for the chunk even after an error: it goes back to free,
		// where the reader may take it again, so no worker may still use it.
		<-s.done
		if emitErr == nil {
			if emitErr = emit(s.c); emitErr != nil {
				close(stop)
			}
		}
		free <- s
	}
	wg.Wait()
	if emitErr != nil {
		return emitErr
	}
	return readErr
}
