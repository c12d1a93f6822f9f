from mirforge.cli import main

main()
