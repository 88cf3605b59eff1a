--- command
--- stderr
gputrace-analyze: 'test/fuzz/seeds/regress-empty-chunk.bin' is corrupt at byte 64: process record of 0 bytes is too short
--- exit 2 signal 0
