# With the kernel's tests and examples, whose squares this one would shadow.
APP_WITH_TESTS := 1
