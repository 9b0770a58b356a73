from stereoprobe.cli import main

main()
