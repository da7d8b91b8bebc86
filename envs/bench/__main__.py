from envs.bench.cli import main

raise SystemExit(main())
