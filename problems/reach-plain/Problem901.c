// Plain rules: a three-state controller. Hand-worked answers:
//   start (a=1,b=0) --A/U--> (2,0) --B/V--> (3,1): error_0 on the way in.
//   (2,0) --A/W--> (1,0).  Nothing else fires (invalid input).
//   error_0: a==3 && b==1 -> reachable, witness A B.
//   error_1: a==2 && b==2 -> b is only ever 0 or 1: unreachable.
//   error_2: a==1 && b==1 -> b==1 only with a==3: unreachable.
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
	int b = 0;

	void errorCheck() {
	    if((a == 3 && b == 1)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((a == 2 && b == 2)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((a == 1 && b == 1)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && a == 1) && (input == 1)) {
    	cf = 0;
    	a = 2;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && a == 2) && (input == 2)) {
    	cf = 0;
    	a = 3;
    	b = 1;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 1)) && a == 2) {
    	cf = 0;
    	a = 1;
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
