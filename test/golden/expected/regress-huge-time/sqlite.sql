--- command
--- stderr
gputrace-analyze: 'test/fuzz/seeds/regress-huge-time.bin' is corrupt at byte 72918: event uses op 112372, which is not defined
--- exit 2 signal 0
