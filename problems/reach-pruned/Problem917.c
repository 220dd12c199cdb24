// A label only a complete search pruned by the abstraction settles.
// Hand-worked answers:
//   start (a=1, x=0, y=0, z=0). A (input 1) in mode 1 while x < 3: x and
//   y both grow by one, so x == y in every state of mode 1. B (input 2)
//   in mode 1 once x == 3: mode 2 (a=2). C (input 3) in mode 1: z = 1;
//   in mode 2 while x > 0: x shrinks by one. Mode 2 never returns to
//   mode 1.
//   error_0: a == 1 && x != y -> x == y in mode 1: unreachable. Intervals
//     join x = 1 and x = 2 (one cell of x) and y with them: the
//     abstraction reaches it, a concrete search must settle it; the
//     states of mode 2 reach it in no abstract path and are pruned.
//   error_1: a == 2 && x == 0 -> A A A B C C C: reachable, 7 inputs.
//   error_2: a == 1 && z == 1 -> C: reachable, 1 input.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	// inputs
	int inputs[] = {1,2,3};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int a = 1;
	int x = 0;
	int y = 0;
	int z = 0;

	void errorCheck() {
	    if((a == 1 && x != y)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((a == 2 && x == 0)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((a == 1 && z == 1)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && a == 1) && (input == 1) && x < 3) {
    	cf = 0;
    	x = x + 1;
    	y = y + 1;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && a == 1) && (input == 2) && x == 3) {
    	cf = 0;
    	a = 2;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && a == 1) && (input == 3)) {
    	cf = 0;
    	z = 1;
    	printf("%d\n", 24); fflush(stdout);
    }
    if((cf==1 && a == 2) && (input == 3) && x > 0) {
    	cf = 0;
    	x = x - 1;
    	printf("%d\n", 23); fflush(stdout);
    }
    errorCheck();

    if( cf==1 )
    	fprintf(stderr, "Invalid input: %d\n", input);
}

int main()
{
    // main i/o-loop
    while(1)
    {
        // read input
        int input;
        scanf("%d", &input);
        // operate eca engine
        if((input != 1) && (input != 2) && (input != 3))
          return -2;
        calculate_output(input);
    }
}
