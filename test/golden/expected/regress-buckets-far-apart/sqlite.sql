--- command
--- stderr
gputrace-analyze: 'test/fuzz/seeds/regress-buckets-far-apart.bin' is corrupt at byte 329: chunk of 536870912 bytes is over the limit (16777216)
--- exit 2 signal 0
