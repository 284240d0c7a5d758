package main

import adsynccmd "github.com/adsync/adsync/cmd"

func main() { adsynccmd.Main() }
